/**
 * The security stages of the pipeline (docs/behaviour.md, "Security"):
 * - pre-read: a `security` expression that uses neither `object` nor `previous_object` runs before
 *   the read, so a denied request learns nothing about whether the item exists;
 * - security: one that uses them runs after the read (`object`: the item, null for Post, the page's
 *   items for a listing; `previous_object`: a copy);
 * - securityPostDenormalize: after the body is applied (`object`: the changed, unsaved item,
 *   `previous_object`: the stored one), property-level rules first;
 * - securityPostValidation: after validation, so a 422 wins over it;
 * - property read access: before serialization, the properties each item shows that user.
 * A denial answers 401 to an anonymous request and 403 to an authenticated one.
 */
import { perOperation } from '../metadata/options.js';
import type { OperationMetadata, PropertyMetadata, Settings } from '../metadata/types.js';
import { accessDenied, allows, type RequestFacts } from '../security/access.js';
import { compileGuard } from '../expression/guard.js';
import type { CompiledExpression } from '../expression/expression.js';
import type { Item } from '../store/types.js';
import { asPage } from './page.js';
import { isItem, type OperationState } from './state.js';

type Stage = 'security' | 'securityPostDenormalize' | 'securityPostValidation';

interface Guard {
  expression: CompiledExpression;
  message?: string;
}

/** The operation's three guards (resource-level values already merged under its own at load). */
const guardsOf = perOperation((op: OperationMetadata) => {
  const guard = (stage: Stage): Guard | undefined => {
    const source = op.options[stage];
    if (typeof source !== 'string') return undefined;
    const message = op.options[`${stage}Message`];
    return { expression: compileGuard(source, op.uriVariables), message: typeof message === 'string' ? message : undefined };
  };
  return { security: guard('security'), securityPostDenormalize: guard('securityPostDenormalize'), securityPostValidation: guard('securityPostValidation') };
});

/** Whether an operation has any operation-level guard (OpenAPI documents its 401 and 403). */
export const isGuarded = (op: OperationMetadata, settings: Settings): boolean => {
  const g = guardsOf(op, settings);
  return g.security !== undefined || g.securityPostDenormalize !== undefined || g.securityPostValidation !== undefined;
};

/** Whether the `security` expression reads the item, so that it runs after the read. */
export const securityReadsObject = (op: OperationMetadata, settings: Settings): boolean => guardsOf(op, settings).security?.expression.usesObject === true;

function factsOf(state: OperationState): RequestFacts {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(state.request.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return {
    security: state.api.security,
    principal: state.principal,
    request: { method: state.request.method, path: state.path, query: state.request.query, headers },
    uriVariables: state.uriVariables,
    logger: state.logger,
  };
}

async function enforce(state: OperationState, guard: Guard, object: unknown, previousObject: unknown): Promise<void> {
  if (!(await allows(guard.expression, factsOf(state), object, previousObject))) throw accessDenied(state.principal, guard.message);
}

export function preReadSecurity(state: OperationState): Promise<void> | undefined {
  const guard = guardsOf(state.operation, state.api.settings).security;
  if (!guard || guard.expression.usesObject) return undefined;
  return enforce(state, guard, null, null);
}

export function postReadSecurity(state: OperationState): Promise<void> | undefined {
  const guard = guardsOf(state.operation, state.api.settings).security;
  return guard?.expression.usesObject ? enforceAfterRead(state, guard) : undefined;
}

async function enforceAfterRead(state: OperationState, guard: Guard): Promise<void> {
  let object: unknown = state.data;
  if (state.page) {
    if (state.page.stream) {
      // The expression sees the whole unpaginated collection: read it now (the stream is spent).
      const items: unknown[] = [];
      for await (const item of state.page.stream) items.push(item);
      state.page = { ...state.page, items, stream: undefined, total: items.length };
      state.data = state.page;
    }
    object = state.page.items;
  }
  const copy = object === null || object === undefined ? null : structuredClone(object);
  await enforce(state, guard, object, copy);
}

export function postDenormalizeSecurity(state: OperationState): Promise<void> | undefined {
  const guard = guardsOf(state.operation, state.api.settings).securityPostDenormalize;
  const writeGuarded = writeGuardedOf(state.operation, state.api.settings).length > 0;
  if (!guard && !writeGuarded) return undefined;
  return (async () => {
    if (writeGuarded) await revertDeniedWrites(state);
    if (guard) await enforce(state, guard, state.data, state.previousData);
  })();
}

export function postValidationSecurity(state: OperationState): Promise<void> | undefined {
  const guard = guardsOf(state.operation, state.api.settings).securityPostValidation;
  return guard ? enforce(state, guard, state.data, state.previousData) : undefined;
}

/** Properties with a write rule, by operation's resource. */
const writeGuardedOf = perOperation((op: OperationMetadata): PropertyMetadata[] => op.resource.properties.filter((p) => p.securityPostDenormalize));

/**
 * Property `securityPostDenormalize`: each property the body wrote whose rule denies keeps its
 * stored value (or stays absent on a new item), unless it sets `throwOnAccessDenied` (403).
 */
async function revertDeniedWrites(state: OperationState): Promise<void> {
  const guarded = writeGuardedOf(state.operation, state.api.settings);
  const body = state.request.body;
  if (!isItem(state.data) || !isItem(body)) return;
  const item = state.data;
  const previous = isItem(state.previousData) ? state.previousData : undefined;
  const facts = factsOf(state);
  for (const p of guarded) {
    if (!Object.hasOwn(body, p.name)) continue;
    if (await allows(p.securityPostDenormalize!, facts, item, previous ?? null)) continue;
    if (p.throwOnAccessDenied) throw accessDenied(state.principal, undefined);
    if (previous && Object.hasOwn(previous, p.name)) item[p.name] = structuredClone(previous[p.name]);
    else delete item[p.name];
  }
}

/** Properties with a read rule, by resource (none: the stage costs nothing). */
const readGuarded = perOperation((op: OperationMetadata): PropertyMetadata[] => op.resource.properties.filter((p) => p.security));

/**
 * Property `security`: records, for every item the response shows, the properties that user may
 * not see (serialize leaves them out). Rules without `object` are evaluated once per request.
 */
export function propertyReadSecurity(state: OperationState): Promise<void> | undefined {
  const guarded = readGuarded(state.operation, state.api.settings);
  return guarded.length ? recordHiddenProperties(state, guarded) : undefined;
}

async function recordHiddenProperties(state: OperationState, guarded: PropertyMetadata[]): Promise<void> {
  const facts = factsOf(state);
  const fixed = new Map<PropertyMetadata, boolean>();
  for (const p of guarded) if (!p.security!.usesObject) fixed.set(p, await allows(p.security!, facts, null, null));
  const hidden = new WeakMap<Item, ReadonlySet<string>>();
  state.hiddenProperties = hidden;
  const record = async (item: Item): Promise<void> => {
    const names = new Set<string>();
    for (const p of guarded) {
      const allowed = fixed.get(p) ?? (await allows(p.security!, facts, item, null));
      if (!allowed) names.add(p.name);
    }
    hidden.set(item, names);
  };
  if (state.operation.collection && !state.page && state.data != null) state.page = asPage(state.data, state);
  const page = state.page;
  if (page?.stream) {
    const source = page.stream;
    page.stream = (async function* () {
      for await (const item of source) {
        if (isItem(item)) await record(item);
        yield item;
      }
    })();
  } else if (page) {
    for (const item of page.items) if (isItem(item)) await record(item);
  } else if (isItem(state.data)) await record(state.data);
}
