/**
 * Deleting a referenced item (docs/behaviour.md, "Deleting a referenced item"): relations hold the IRI of their
 * target, so a delete decides what becomes of the items that reference it, by each relation's `onDelete`
 * (Prisma's and Doctrine's referential actions). `restrict` (the default) refuses the delete with 409 while a
 * reference remains; `cascade` deletes the referencing items too, their own referrers' rules applying in turn;
 * `setNull` removes the reference. The items an `owned: true` relation of a deleted item lists are deleted with it
 * (owned-items.ts). Every delete path goes through `deleteItem`: the item DELETE, custom code's
 * `ctx.remove`, message handlers' `ctx.remove`.
 *
 * The whole tree is planned first, with reads only (each referrer found through its relation's index): a
 * `restrict` anywhere refuses the delete before anything is written. The writes then run in one transaction
 * where the store has them (SQLite); elsewhere the setNull updates come first and the deletes deepest first,
 * the deleted item last, so an interrupted run never leaves a reference to a deleted item.
 */
import { isDeepStrictEqual } from 'node:util';
import { HttpError, preconditionFailed } from '../../protocol/errors.js';
import { itemIri } from '../../protocol/iri.js';
import { GENID_PATH } from '../../metadata/load-operation.js';
import type { ApiMetadata, PropertyMetadata, ResourceMetadata } from '../../metadata/types.js';
import { StillReferencedError, type Condition, type Id, type Item, type Store } from '../../store/types.js';
import type { Runtime, Transaction } from '../runtime.js';
import { ownedItems } from './owned-items.js';

/** One write a delete made: an item removed, or saved without its references to removed items. */
export interface ReferentialWrite {
  kind: 'removed' | 'saved';
  resource: ResourceMetadata;
  item: Item;
}

/** What a delete needs of the runtime (state.ts). */
export type DeleteContext = Pick<Runtime, 'api' | 'collectionOf' | 'transaction'>;

/** A relation pointing at a resource: the property of `from` that holds the IRIs. */
interface Reference {
  from: ResourceMetadata;
  property: PropertyMetadata;
}

interface Doomed {
  resource: ResourceMetadata;
  item: Item;
  id: Id;
  iris: string[];
  /** For an item a cascade reached: it is deleted only while it still names the item it was found through. */
  naming?: Condition;
}

/** Most conflicts a 409's detail names one by one (a wide cascade may meet many). */
const CONFLICTS_SHOWN = 5;

/**
 * Deletes `item` of `resource` and applies the referential actions; resolves with every write made, the item's
 * own removal included (last), or with none when the item was already gone. Throws the 409 of a `restrict`.
 * With `expected` (a conditional DELETE), the item is deleted only while it is still stored as `expected`, else
 * 412 and nothing deleted (the referrers' writes too where the store has transactions; elsewhere the condition
 * is also checked before any of them).
 */
export async function deleteItem(
  ctx: DeleteContext,
  resource: ResourceMetadata,
  item: Item,
  expected?: Item,
): Promise<ReferentialWrite[]> {
  try {
    return await deleteWithActions(ctx, resource, item, expected);
  } catch (e) {
    // The store's own check (a foreign key): a referrer stored since the plan read them, whose relation restricts.
    if (e instanceof StillReferencedError) throw new HttpError(409, e.message);
    throw e;
  }
}

async function deleteWithActions(
  ctx: DeleteContext,
  resource: ResourceMetadata,
  item: Item,
  expected?: Item,
): Promise<ReferentialWrite[]> {
  const id = idOf(resource, item);
  if (id === undefined) return [];
  const root: Doomed = { resource, item, id, iris: irisOf(resource, item) };
  const plan = await planDelete(ctx, root);
  const collection = ctx.collectionOf(resource);
  if (plan.removed.length === 1 && plan.updated.size === 0) {
    // Nothing references it: the plain delete, no transaction needed (a late referrer is compensated for).
    if (!(await collection.delete(id, expected))) {
      if (expected) throw changedMeanwhile();
      return [];
    }
    return [{ kind: 'removed', resource, item }, ...(await lateReferrers(ctx, plan.removed, true))];
  }
  if (expected && !ctx.transaction && !isDeepStrictEqual(await collection.get(id), expected)) throw changedMeanwhile();
  const write = async (): Promise<ReferentialWrite[]> => {
    const writes = await applyPlan(ctx, plan, expected);
    if (!writes.some((w) => w.kind === 'removed' && w.item === item)) return writes;
    return [...writes, ...(await lateReferrers(ctx, plan.removed, !ctx.transaction))];
  };
  return ctx.transaction ? ctx.transaction(write) : write();
}

const changedMeanwhile = (): HttpError =>
  preconditionFailed('The item changed since the version the request names (If-Match): nothing was deleted.');

/**
 * The referrers a plan could not see (docs/behaviour.md, "Writes racing a delete"): items a concurrent write
 * stored, naming an item of `removed`, after the plan read its referrers; that write checked its target while it
 * was still there. Looked for again once the items are gone, and handled by their relations' actions as the plan
 * would have. A `restrict` found now refuses the delete after all (409): inside a transaction its rollback undoes
 * it; without one (`restore`) the removed items are stored back first. A write that stores its reference after this
 * look finds its target gone and undoes itself (persist.ts), so no interleaving leaves a reference to a deleted item.
 */
async function lateReferrers(ctx: DeleteContext, removed: Doomed[], restore: boolean): Promise<ReferentialWrite[]> {
  const writes: ReferentialWrite[] = [];
  for (const gone of removed) {
    let plan: Plan;
    try {
      plan = await planDelete(ctx, gone);
    } catch (e) {
      if (restore && e instanceof HttpError && e.status === 409) await restoreRemoved(ctx, removed);
      throw e;
    }
    if (plan.removed.length === 1 && plan.updated.size === 0) continue;
    writes.push(...(await applyPlan(ctx, plan)));
    writes.push(...(await lateReferrers(ctx, plan.removed.slice(1), restore)));
  }
  return writes;
}

/** Stores back the items a delete removed, the deleted item first (the compensation of a late `restrict`). */
async function restoreRemoved(ctx: DeleteContext, removed: Doomed[]): Promise<void> {
  for (const { resource, item, id } of removed) await ctx.collectionOf(resource).upsert(id, item);
}

/**
 * One transaction at a time on a store (SQLite opens one per connection): the deletes that need one queue. A store
 * whose transactions run side by side (PostgreSQL) is not queued: a transaction stuck on a frozen server would hold
 * every one behind it past the time limit of a single query.
 */
export function deleteTransaction(store: Store): Transaction | undefined {
  if (!store.transaction) return undefined;
  if (store.concurrentTransactions) return (run) => store.transaction!(run);
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(run: () => Promise<T>): Promise<T> => {
    const result = tail.then(() => store.transaction!(run));
    tail = result.catch(() => undefined);
    return result;
  };
}

interface Plan {
  /** In the order found, the deleted item first. */
  removed: Doomed[];
  /** Referrers that only lose references, by key, as they will be saved. */
  updated: Map<string, { resource: ResourceMetadata; item: Item; id: Id }>;
}

async function planDelete(ctx: DeleteContext, root: Doomed): Promise<Plan> {
  const removed = [root];
  const removedKeys = new Set([keyOf(root.resource, root.id)]);
  const updated: Plan['updated'] = new Map();
  const restricts: { target: Doomed; ref: Reference; where: Condition[] }[] = [];
  for (let i = 0; i < removed.length; i++) {
    const target = removed[i]!;
    for (const ref of referencesTo(ctx.api, target.resource)) {
      const collection = ctx.collectionOf(ref.from);
      const where = [referring(ref.property, target.iris)];
      const action = ref.from.identifier ? ref.property.onDelete : 'restrict';
      if (action === 'restrict') {
        restricts.push({ target, ref, where }); // counted once the whole tree is known
        continue;
      }
      for (const referrer of await collection.find({ where })) {
        const id = idOf(ref.from, referrer);
        const key = keyOf(ref.from, id);
        if (id === undefined || removedKeys.has(key)) continue;
        if (action === 'cascade') {
          removedKeys.add(key);
          updated.delete(key);
          removed.push({ resource: ref.from, item: referrer, id, iris: irisOf(ref.from, referrer), naming: where[0] });
          continue;
        }
        let entry = updated.get(key);
        if (!entry) updated.set(key, (entry = { resource: ref.from, item: { ...referrer }, id }));
        entry.item = withoutReference(entry.item, ref.property, target.iris);
      }
    }
    await addOwned(ctx, target, removed, removedKeys, updated);
  }
  const conflicts: string[] = [];
  for (const { target, ref, where } of restricts) {
    const collection = ctx.collectionOf(ref.from);
    let n = await collection.count(where);
    // Referrers the same delete removes (a cycle, another path of the cascade) do not hold it back.
    if (n > 0 && removed.some((d) => d.resource === ref.from))
      n = (await collection.find({ where })).filter((r) => !removedKeys.has(keyOf(ref.from, idOf(ref.from, r)))).length;
    if (n > 0) conflicts.push(conflict(target, root, ref, n));
  }
  if (conflicts.length > 0) {
    const shown = conflicts.slice(0, CONFLICTS_SHOWN);
    const more = conflicts.length - shown.length;
    throw new HttpError(409, [...shown, ...(more > 0 ? [`And ${more} more.`] : [])].join(' '));
  }
  return { removed, updated };
}

/** The items `target` owns (`owned: true` relations) go with it, their own owned items and referrers in turn. */
async function addOwned(
  ctx: DeleteContext,
  target: Doomed,
  removed: Doomed[],
  removedKeys: Set<string>,
  updated: Plan['updated'],
): Promise<void> {
  for (const owned of await ownedItems(ctx.api, ctx.collectionOf, target.resource, target.item)) {
    const id = idOf(owned.resource, owned.item);
    const key = keyOf(owned.resource, id);
    if (id === undefined || removedKeys.has(key)) continue;
    removedKeys.add(key);
    updated.delete(key);
    removed.push({ resource: owned.resource, item: owned.item, id, iris: irisOf(owned.resource, owned.item) });
  }
}

async function applyPlan(ctx: DeleteContext, plan: Plan, expected?: Item): Promise<ReferentialWrite[]> {
  const writes: ReferentialWrite[] = [];
  for (const { resource, item, id } of plan.updated.values()) {
    const saved = await ctx.collectionOf(resource).replace(id, item);
    if (saved) writes.push({ kind: 'saved', resource, item: saved });
  }
  const root = plan.removed[0];
  for (const doomed of [...plan.removed].reverse()) {
    const { resource, item, id, naming } = doomed;
    const condition = doomed === root ? expected : undefined;
    // A referrer a concurrent write moved away since the plan read it stays (its new target is not going).
    if (await ctx.collectionOf(resource).delete(id, condition, naming && [naming]))
      writes.push({ kind: 'removed', resource, item });
    else if (condition) throw changedMeanwhile(); // inside the transaction: every write above is undone
  }
  return writes;
}

/** `Talk "/talks/3" is referenced by 8 Review items (property "talk").`, saying so when a cascade reached it. */
function conflict(target: Doomed, root: Doomed, ref: Reference, n: number): string {
  const what = `${target.resource.shortName} "${target.iris[0]}"`;
  const via =
    target === root ? '' : `, which deleting ${root.resource.shortName} "${root.iris[0]}" would delete (cascade),`;
  return `${what}${via} is referenced by ${n} ${ref.from.shortName} item${n === 1 ? '' : 's'} (property "${ref.property.name}").`;
}

/** Items whose relation names one of `iris`: an index lookup on the relation (to-many: on its elements). */
function referring(property: PropertyMetadata, iris: string[]): Condition {
  return { op: 'in', field: property.name, values: iris }; // on an array field: element-wise
}

/** The referrer without its references to `iris`: a to-one relation null (absent where null is refused), a to-many one without them. */
function withoutReference(item: Item, property: PropertyMetadata, iris: string[]): Item {
  const value = item[property.name];
  if (property.array)
    return {
      ...item,
      [property.name]: Array.isArray(value) ? value.filter((v) => !iris.includes(v as string)) : value,
    };
  if (typeof value !== 'string' || !iris.includes(value)) return item;
  const out = { ...item, [property.name]: null };
  if (!property.nullable) delete out[property.name];
  return out;
}

/**
 * Whether a delete of an item of `resource` may be refused (409): some relation that restricts points at it, or
 * at a resource its cascades reach (judged by the declarations, whatever the data).
 */
export function mayRestrict(api: ApiMetadata, resource: ResourceMetadata): boolean {
  const reached = [resource];
  for (let i = 0; i < reached.length; i++) {
    for (const ref of referencesTo(api, reached[i]!)) {
      const action = ref.from.identifier ? ref.property.onDelete : 'restrict';
      if (action === 'restrict') return true;
      if (action === 'cascade' && !reached.includes(ref.from)) reached.push(ref.from);
    }
  }
  return false;
}

const references = new WeakMap<ApiMetadata, Map<ResourceMetadata, Reference[]>>();

/** The relations whose target is `resource`, across the API (computed once per API). */
function referencesTo(api: ApiMetadata, resource: ResourceMetadata): Reference[] {
  let byTarget = references.get(api);
  if (!byTarget) {
    byTarget = new Map();
    for (const from of api.resources) {
      for (const property of from.properties) {
        const target = property.relation ? api.resource(property.relation) : undefined;
        if (target) byTarget.set(target, [...(byTarget.get(target) ?? []), { from, property }]);
      }
    }
    references.set(api, byTarget);
  }
  return byTarget.get(resource) ?? [];
}

/**
 * The IRIs a relation may hold for the item: the path of each of its resource's item Get routes (relations are
 * stored as absolute paths, representation/denormalize.ts), the canonical one first.
 */
function irisOf(resource: ResourceMetadata, item: Item): string[] {
  const routes = resource.operations.filter((o) => o.method === 'GET' && !o.isCollection && o.path !== GENID_PATH);
  const iris = [itemIri(resource, item), ...routes.map((op) => itemIri(resource, item, op))];
  return [...new Set(iris.filter((iri) => !iri.startsWith('/.well-known/genid/')))];
}

function idOf(resource: ResourceMetadata, item: Item): Id | undefined {
  const v = resource.identifier ? item[resource.identifier.name] : undefined;
  return typeof v === 'number' || typeof v === 'string' ? v : undefined;
}

const keyOf = (resource: ResourceMetadata, id: Id | undefined): string => `${resource.shortName}\0${String(id)}`;
