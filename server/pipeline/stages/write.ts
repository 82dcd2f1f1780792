/**
 * Stage "write": the processor. The default one persists (POST inserts, PUT/PATCH replace or,
 * with allowCreate, create, DELETE removes); a custom `processor` replaces it and may call the
 * default through `ctx.persist` / `ctx.remove`. A custom controller takes this stage's place.
 */
import { notFound } from '../../protocol/errors.js';
import { optionValue, perOperation } from '../../metadata/options.js';
import type { Item } from '../../store/types.js';
import { customContext } from '../custom-context.js';
import { dispatchData } from '../writes/dispatch.js';
import { inCodeTransaction, type CrossResourceSession } from '../writes/custom-writes.js';
import {
  committed,
  insertItem,
  persistItem,
  refusingConflicts,
  removeItem,
  withNestedWrites,
} from '../writes/persist.js';
import { asPage } from '../pages/page.js';
import { mayRestrict } from '../relations/referential-actions.js';
import { storeUnavailable, unavailable, type Answer, type Answers } from '../answers.js';
import { isItem, type OperationState } from '../state.js';
import { enforceWriteScope, operationScope } from '../scopes.js';

/**
 * Whether the stage has anything to do: a controller, else (`write` not false) a processor or the default
 * write of a method that writes.
 */
export const writes = perOperation(
  (op, settings): boolean =>
    Boolean(op.controller) ||
    (optionValue(op, settings, 'write') !== false &&
      (Boolean(op.processor) || !(op.method === 'GET' || op.method === 'QUERY' || op.method === 'HEAD'))),
);

/** The methods whose request changes an item: the write scope holds for them. */
const WRITING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * `NotFoundAction`'s 404; a write outside the operation's write scope; a chosen identifier in use; a delete that
 * an `onDelete: restrict` relation refuses; the store or the message broker out of reach.
 */
export const writeAnswers: Answers = (op, api) => {
  if (op.controller === 'NotFoundAction')
    return [
      {
        status: 404,
        description: 'Not found: this route exists to give the items their IRIs and always answers 404.',
        only: true,
      },
    ];
  const messenger = optionValue(op, api.settings, 'messenger');
  const dispatchOnly = messenger === true || messenger === 'input';
  const answers: Answer[] = [];
  if (WRITING.has(op.method) && operationScope(op, api))
    answers.push({ status: 403, description: 'The item is, or would be, outside the write scope of this operation.' });
  if (op.method === 'POST' && !dispatchOnly && op.resource.identifier?.readOnly === false)
    answers.push({ status: 409, description: `The chosen identifier is already held by another ${op.shortName}.` });
  if (op.method === 'DELETE' && mayRestrict(api, op.resource))
    answers.push({
      status: 409,
      description: `The ${op.shortName} is referenced by other items through a relation whose onDelete is restrict (perhaps reached by a cascade): nothing was deleted.`,
    });
  if (!dispatchOnly) answers.push(storeUnavailable());
  if (messenger) answers.push(unavailable('The message broker cannot take the message (its transport is down).'));
  return answers;
};

export async function write(state: OperationState): Promise<void> {
  // `write: false` stores nothing, so there is no change for the write scope to judge.
  if (!writes(state.operation, state.api.settings)) return;
  await holdToWriteScope(state);
  return writeInScope(state);
}

/**
 * The write scope for the stored item and the item to store; a body with nested documents has its item checked
 * as it is stored, its relations naming the related items then (writes/persist.ts `withNestedWrites`).
 */
async function holdToWriteScope(state: OperationState): Promise<void> {
  const { method } = state.operation;
  if (!WRITING.has(method)) return;
  const next = method === 'DELETE' || state.nestedWrites?.length ? null : state.data;
  await enforceWriteScope(state, state.previousData, next);
}

/** The write of an item whose write scope holds. */
async function writeInScope(state: OperationState): Promise<void> {
  const op = state.operation;
  if (op.controller) return runController(state);
  if (optionValue(op, state.api.settings, 'write') === false) return;
  if (op.processor) {
    state.data = await runCode(state, (session) => op.processor!(state.data, customContext(state, session)));
    return;
  }
  if (op.method === 'GET' || op.method === 'QUERY' || op.method === 'HEAD') return;
  // `messenger`: true and "input" dispatch instead of storing; "persist" stores, then dispatches.
  const messenger = optionValue(op, state.api.settings, 'messenger');
  if (messenger && messenger !== 'persist') {
    await dispatchData(state, messenger === 'input');
    state.dispatched = true;
    return;
  }
  await persist(state);
  if (messenger === 'persist') await dispatchData(state, false);
}

/**
 * The write of a bulk POST (bulk.ts), `items` holding each item's state after its own validation. The
 * default write inserts them all with one `insertMany` (one transaction: all or none); a controller, a
 * processor, a dispatch-only `messenger` or a POST onto a read item run the single write once per item,
 * in order.
 */
export async function writeBatch(state: OperationState, items: OperationState[]): Promise<void> {
  const op = state.operation;
  if (optionValue(op, state.api.settings, 'write') === false) return;
  const messenger = optionValue(op, state.api.settings, 'messenger');
  // Each item holds to the write scope, or none is written.
  for (const item of items) await holdToWriteScope(item);
  if (op.controller || op.processor || (messenger && messenger !== 'persist') || state.previousData) {
    for (const item of items) await writeInScope(item);
    state.dispatched = items.some((item) => item.dispatched);
    return;
  }
  const saved = await refusingConflicts(() => state.storeCollection.insertMany(items.map((item) => item.data as Item)));
  items.forEach((item, i) => {
    item.data = saved[i];
    committed(item, 'saved', saved[i]);
  });
  if (messenger === 'persist') for (const item of items) await dispatchData(item, false);
}

async function persist(state: OperationState): Promise<void> {
  const op = state.operation;
  if (op.method === 'DELETE') {
    if (isItem(state.data)) await removeItem(state, state.data);
    state.data = null;
    return;
  }
  if (!isItem(state.data)) return;
  // The related items of nested documents are stored with it (relations/nested-writes.ts).
  if (op.method === 'POST' && !state.previousData) {
    state.data = await withNestedWrites(state, (item) => insertItem(state, item));
    return;
  }
  state.data = await withNestedWrites(state, (item) => persistItem(state, item));
}

async function runController(state: OperationState): Promise<void> {
  const controller = state.operation.controller!;
  if (controller === 'NotFoundAction') throw notFound();
  state.data = await runCode(state, (session) => controller(customContext(state, session)));
  // A collection controller's answer (an array or a paginator) is the page served, not the one read before it.
  if (state.operation.isCollection && state.data != null) state.page = asPage(state.data, state);
}

/**
 * Runs a processor or controller in the write's transaction (where the store has one, else undoing its writes
 * when it throws: writes/custom-writes.ts); the changes it made on other resources are published with the rest.
 */
async function runCode(state: OperationState, code: (session: CrossResourceSession) => unknown): Promise<unknown> {
  const { result, changes } = await inCodeTransaction(state.runtime, async (session) => code(session));
  for (const change of changes) (state.changes ??= []).push(change);
  return result;
}
