/**
 * Nested documents on write (docs/behaviour.md, "Nested documents on write"). Where an operation's
 * denormalization groups include properties of a relation's target (API Platform's writable link:
 * metadata/property-access.ts `embeddedProperties`), the relation takes a JSON object in place of an IRI.
 * Without `@id` (in plain JSON: without `id`) the object makes a new item of the target; with one, it changes
 * that stored item, the given properties only. Nested documents may hold nested documents, under the same
 * groups, `MAX_NESTING` levels deep.
 *
 * Three steps, one per stage: `NestedDocuments` plans at deserialization (reads only: each document
 * denormalized, its relations checked, its properties' write rules applied), `nestedViolations` validates the
 * planned items with the parent, `writeNested` stores them before the parent, all or nothing: in one store
 * transaction where the store has them (SQLite), else undone by compensating writes when a later write fails.
 * Until then the relation holds a placeholder (`urn:apidsl:nested:…`), replaced by the IRI once stored.
 */
import { randomUUID } from 'node:crypto';
import { HttpError, badRequest, type Violation } from '../../protocol/errors.js';
import { routeIdentifier } from '../../protocol/identifier.js';
import { itemIri, type IriResolver } from '../../protocol/iri.js';
import { embeddedProperties } from '../../metadata/property-access.js';
import type { ApiMetadata, PropertyMetadata, ResourceMetadata } from '../../metadata/types.js';
import { accessDenied, allows, type RequestFacts } from '../../security/access.js';
import type { Collection, Id, Item } from '../../store/types.js';
import {
  denormalize,
  relationViolation,
  type DenormalizeMode,
  type NestedDocument,
} from '../representation/denormalize.js';
import { validateItem } from '../validation/constraints.js';
import { validationFailed } from '../validation/violations.js';
import type { NestedWrite } from '../state.js';
import type { Runtime } from '../runtime.js';
import { setServerValues } from '../representation/server-values.js';
import { checkRelations, storeTargets } from './targets.js';
import { compensate } from './compensation.js';
import { listedIris, ownedElsewhere } from './owned-items.js';
import {
  findableForChange,
  nestedUpdateGuards,
  nestedWriteScope,
  type NestedUpdateGuards,
  type TargetAccess,
} from './target-access.js';

/** How many levels of nested documents a body may hold (`talk.speaker.organisation` is two). */
export const MAX_NESTING = 5;

/** What planning needs of the request. */
export interface NestedContext {
  api: ApiMetadata;
  iris: IriResolver;
  collectionOf: (resource: ResourceMetadata) => Collection;
  /** The operation's denormalization groups: they decide the writable links, at every level. */
  groups: readonly string[];
  /** The parent's mode: a nested update of a PATCH merges (RFC 7396) as the parent does. */
  mode: DenormalizeMode;
  /** A JSON-LD body names an existing item by `@id` only; plain JSON by `id` as well (API Platform's JSON normalizer). */
  jsonld: boolean;
  /** For the target properties' `securityPostDenormalize`. */
  facts: () => RequestFacts;
  /** For the existing items named: the writer's access to them (target-access.ts). */
  access: TargetAccess;
  /** The stored parent (null on a create): its owned items are changed under its own write's rules. */
  previous: Item | null;
  /** collectDenormalizationErrors: the request's violations, which nested ones join (their paths prefixed). */
  collected?: Violation[];
  /** The operation's `allow_extra_attributes`: false refuses extra attributes in nested documents too. */
  allowsExtraAttributes: boolean;
  /** The write's time: `default: now` and `onUpdate: now` give every item of the body the same. */
  now: Date;
}

/** A nested document found, waiting for its plan. */
interface Found {
  target: ResourceMetadata;
  /** The relation the document is in, and the item holding it (its resource, its stored version). */
  property: PropertyMetadata;
  holder: { resource: ResourceMetadata; stored: Item | null };
  accepted: readonly PropertyMetadata[];
  document: Record<string, unknown>;
  path: string;
  token: string;
  /** The document's place in the body, depth first (its own documents come right after it). */
  order: number;
}

const TOKEN = 'urn:apidsl:nested:';

/** The nested documents of one request body, and the writes they plan. */
export class NestedDocuments {
  /** The planned writes, deepest first (a new item is stored before the items that name it). */
  readonly writes: NestedWrite[] = [];
  /** The placeholders handed out, which relation checks skip. */
  readonly tokens = new Set<string>();
  private readonly top: Found[] = [];
  /** How many documents were found so far: the next one's `order`. */
  private discovered = 0;
  /** The hook the parent's denormalization calls (representation/denormalize.ts). */
  readonly take: NestedDocument;

  constructor(private readonly ctx: NestedContext) {
    this.take = this.level(this.top, '', 1, { resource: ctx.access.self!.resource, stored: ctx.previous });
  }

  /** Whether the body held any nested document. */
  get found(): boolean {
    return this.top.length > 0;
  }

  /** Plans every nested document the parent's denormalization found (reads the items updated). */
  async resolve(): Promise<void> {
    for (const found of this.top) await this.plan(found, 1);
  }

  private level(queue: Found[], prefix: string, depth: number, holder: Found['holder']): NestedDocument {
    return (property, document, path) => {
      const target = property.relation === undefined ? undefined : this.ctx.api.resource(property.relation);
      const accepted = target && embeddedProperties(target, this.ctx.groups, 'input');
      // A target without identifier has no item a relation could name: IRIs only (none there).
      if (!target?.identifier || !accepted) return undefined;
      const at = prefix + path;
      if (depth > MAX_NESTING)
        throw badRequest(`Nested documents may go ${MAX_NESTING} levels deep, "${at}" is deeper. Use an IRI there.`);
      const token = `${TOKEN}${randomUUID()}`;
      this.tokens.add(token);
      queue.push({ target, property, holder, accepted, document, path: at, token, order: this.discovered++ });
      return token;
    };
  }

  private async plan(found: Found, depth: number): Promise<void> {
    const { ctx } = this;
    const stored = await this.stored(found);
    if (stored === undefined) return; // refused, collected as a violation
    const guards = stored ? await this.changeGuards(found, stored) : null;
    if (guards === undefined) return; // refused, collected as a violation
    const previous = stored?.item ?? null;
    let mode: DenormalizeMode = ctx.mode === 'merge-patch' ? 'merge-patch' : 'replace';
    if (previous === null) mode = 'create';
    const deeper: Found[] = [];
    const collected: Violation[] | undefined = ctx.collected ? [] : undefined;
    let item: Item;
    // A plain JSON document naming its item by `id` does not set it: the name is no attribute.
    const { id: _name, ...attributes } = found.document;
    const named = previous !== null && !Object.hasOwn(found.document, '@id') && Object.hasOwn(found.document, 'id');
    try {
      item = denormalize(found.target, named ? attributes : found.document, mode, previous, ctx.iris, {
        accepted: found.accepted,
        collected,
        nested: this.level(deeper, `${found.path}.`, depth + 1, { resource: found.target, stored: previous }),
        extraAttributes: { allowed: ctx.allowsExtraAttributes },
      });
      await setServerValues(found.target, item, previous ? 'update' : 'create', ctx.facts, ctx.iris, ctx.now);
    } catch (e) {
      if (e instanceof HttpError && e.options.violations)
        throw validationFailed(e.options.violations.map((v) => nestedViolation(found.path, v)));
      throw e;
    }
    for (const next of deeper) await this.plan(next, depth + 1);
    const self = { resource: found.target, id: previous ? idOf(found.target, previous) : undefined };
    const access = { ...ctx.access, self };
    const targets = storeTargets(ctx.iris, ctx.collectionOf);
    await checkRelations(found.target, item, previous, targets, collected, this.tokens, access);
    if (collected) ctx.collected!.push(...collected.map((v) => nestedViolation(found.path, v)));
    await this.applyWriteRules(found, item, previous);
    await guards?.postDenormalize(item);
    // The item's own write scope (its resource's Post or Patch): the stored item now, the new one when written.
    const scope = await nestedWriteScope(ctx.access, found.target, stored?.iri);
    await scope?.(previous);
    this.writes.push({
      ...(guards && { postValidation: () => guards.postValidation(item) }),
      ...(scope && { scope }),
      resource: found.target,
      item,
      previous,
      path: found.path,
      token: found.token,
      order: found.order,
      ...(stored && { iri: stored.iri }),
    });
  }

  /**
   * The stored item a document names (`@id`, or in plain JSON `id`: an IRI or the identifier), null when it
   * names none (a new item), undefined when the name is refused and collected as a violation.
   */
  private async stored(found: Found): Promise<{ item: Item; iri: string; name: string } | null | undefined> {
    const { ctx } = this;
    const { document, target } = found;
    let key: '@id' | 'id' | undefined;
    if (Object.hasOwn(document, '@id')) key = '@id';
    else if (!ctx.jsonld && Object.hasOwn(document, 'id')) key = 'id';
    if (key === undefined) return null;
    const name = document[key];
    let id: Id | undefined;
    if (typeof name === 'string' && ctx.iris.resourceOf(name) === target.shortName)
      id = ctx.iris.identifierOf(target, name);
    else if (key === 'id' && (typeof name === 'string' || typeof name === 'number'))
      id = routeIdentifier(target, String(name));
    else {
      const shown = typeof name === 'string' ? name : JSON.stringify(name);
      return this.refuse(found, `Invalid IRI "${shown}".`);
    }
    const item = id === undefined ? null : await ctx.collectionOf(target).get(id);
    const iri = item && itemIri(target, item);
    // An item outside the read scope of the request that would change it is not there for this writer.
    if (!item || !(await findableForChange(ctx.access, target, iri!, item)))
      return this.refuse(found, `Item not found for "${String(name)}".`);
    return { item, iri: iri!, name: String(name) };
  }

  /**
   * What a document naming a stored item may change of it: null when the item is the holder's own owned item (the
   * holder's write governs it), else its resource's Patch guards (target-access.ts); undefined when refused and
   * collected. An item another item owns is refused as an unknown one.
   */
  private async changeGuards(
    found: Found,
    stored: { item: Item; iri: string; name: string },
  ): Promise<NestedUpdateGuards | null | undefined> {
    const { property, holder, target } = found;
    if (property.owned && listedIris(holder.stored?.[property.name]).includes(stored.iri)) return null;
    // An owned item is reached through its owner only, whatever the relation naming it.
    const self = { resource: holder.resource, id: holder.stored ? idOf(holder.resource, holder.stored) : undefined };
    if (await ownedElsewhere(this.ctx.api, this.ctx.collectionOf, target, stored.iri, self))
      return this.refuse(found, `Item not found for "${stored.name}".`);
    return nestedUpdateGuards(this.ctx.access, target, stored.iri, stored.item, found.path);
  }

  private refuse(found: Found, detail: string): undefined {
    if (!this.ctx.collected) throw badRequest(detail);
    this.ctx.collected.push(relationViolation(found.path, found.target.shortName, detail));
    return undefined;
  }

  /**
   * The target's property `securityPostDenormalize`, as on a request of its own: a property the document
   * wrote whose rule denies keeps its stored value (stays absent on a new item), or 403 with `throwOnAccessDenied`.
   */
  private async applyWriteRules(found: Found, item: Item, previous: Item | null): Promise<void> {
    for (const p of found.accepted) {
      if (!p.securityPostDenormalize || !Object.hasOwn(found.document, p.name)) continue;
      const facts = this.ctx.facts();
      if (await allows(p.securityPostDenormalize, facts, item, previous, found.target)) continue;
      if (p.throwOnAccessDenied) throw accessDenied(facts.principal, undefined);
      if (previous && Object.hasOwn(previous, p.name)) item[p.name] = structuredClone(previous[p.name]);
      else delete item[p.name];
    }
  }
}

/** A nested item's violation under its path in the request: `speaker.name`, `reviewers[1].name`. */
function nestedViolation(path: string, v: Violation): Violation {
  const sub = v.propertyPath;
  if (sub === '') return { ...v, propertyPath: path };
  return { ...v, propertyPath: sub.startsWith('[') ? `${path}${sub}` : `${path}.${sub}` };
}

/** The planned items' constraint violations, in the parent's validation groups, under their paths. */
export function nestedViolations(writes: readonly NestedWrite[], groups: readonly string[]): Violation[] {
  // In body order (`speaker.email` before `speaker.organisation.website`), not in the order they are written.
  return [...writes]
    .sort((a, b) => a.order - b.order)
    .flatMap((w) => validateItem(w.resource, w.item, groups).map((v) => nestedViolation(w.path, v)));
}

/** An item a nested write stored: for the changes the write stage records (Mercure, the HTTP cache). */
export interface NestedSaved {
  resource: ResourceMetadata;
  item: Item;
}

/**
 * Stores the planned items, then `store`s the parent with their IRIs in place of the placeholders; all or
 * nothing. With a store transaction (SQLite) everything runs in it. Without (MongoDB) a failure undoes what was
 * written: the new items deleted, the changed ones put back (readers may see them meanwhile; a crash in between
 * leaves them). Only the writes the parent still reaches are made: a relation a write rule reverted drops its own.
 */
export async function writeNested<T>(
  runtime: Pick<Runtime, 'collectionOf' | 'transaction' | 'logger'>,
  writes: readonly NestedWrite[],
  parent: Item,
  parentResource: ResourceMetadata,
  store: (parent: Item) => Promise<T>,
): Promise<{ result: T; saved: NestedSaved[] }> {
  const run = async () => {
    const iris = new Map<string, string>();
    const undo: (() => Promise<unknown>)[] = [];
    const saved: NestedSaved[] = [];
    try {
      for (const w of reached(writes, parent, parentResource)) {
        const collection = runtime.collectionOf(w.resource);
        const item = settled(w.resource, w.item, iris);
        await w.scope?.(item); // with the IRIs of the items stored before it, in the transaction
        if (w.previous === null) {
          const stored = await collection.insert(item);
          iris.set(w.token, itemIri(w.resource, stored));
          undo.push(() => collection.delete(idOf(w.resource, stored)));
          saved.push({ resource: w.resource, item: stored });
        } else {
          const id = idOf(w.resource, w.previous);
          const stored = await collection.replace(id, item);
          if (!stored) throw badRequest(`Item not found for "${w.iri!}".`); // deleted since it was read
          iris.set(w.token, w.iri!);
          const previous = w.previous;
          undo.push(() => collection.replace(id, previous));
          saved.push({ resource: w.resource, item: stored });
        }
      }
      return { result: await store(settled(parentResource, parent, iris)), saved };
    } catch (e) {
      if (!runtime.transaction) await compensate(undo, runtime.logger, 'nested write: a related item');
      throw e;
    }
  };
  return runtime.transaction ? runtime.transaction(run) : run();
}

/** The writes whose placeholder the parent holds, directly or through another reached write, deepest first. */
function reached(writes: readonly NestedWrite[], parent: Item, parentResource: ResourceMetadata): NestedWrite[] {
  const wanted = new Set(placeholders(parentResource, parent));
  const kept: NestedWrite[] = [];
  for (const w of [...writes].reverse()) {
    if (!wanted.has(w.token)) continue;
    kept.unshift(w);
    for (const token of placeholders(w.resource, w.item)) wanted.add(token);
  }
  return kept;
}

/** The placeholders the item's relations hold. */
function placeholders(resource: ResourceMetadata, item: Item): string[] {
  return resource.properties
    .filter((p) => p.relation !== undefined)
    .flatMap((p) => (Array.isArray(item[p.name]) ? (item[p.name] as unknown[]) : [item[p.name]]))
    .filter((v): v is string => typeof v === 'string' && v.startsWith(TOKEN));
}

/** The item with the IRIs of the stored items in place of their placeholders. */
function settled(resource: ResourceMetadata, item: Item, iris: ReadonlyMap<string, string>): Item {
  const out: Item = { ...item };
  const one = (v: unknown): unknown => (typeof v === 'string' ? (iris.get(v) ?? v) : v);
  for (const p of resource.properties) {
    if (p.relation === undefined || !Object.hasOwn(out, p.name)) continue;
    const value = out[p.name];
    out[p.name] = Array.isArray(value) ? value.map(one) : one(value);
  }
  return out;
}

function idOf(resource: ResourceMetadata, item: Item): Id {
  return item[resource.identifier!.name] as Id;
}
