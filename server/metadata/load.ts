/**
 * Loads the runtime metadata of a checked `.api` file, once: resources and their properties (load-property.ts),
 * operations (declared or default) with resource-level options merged under their own (load-operation.ts),
 * resource then operation mutators applied (at load, result cached; docs/language.md), routes and the hidden IRI
 * routes, custom code imported, storage specs derived.
 */
import * as A from '../../grammar/ast.js';
import { FILTER_KINDS } from '../../grammar/catalogue/index.js';
import type { ApiModel, ModelResource } from '../../grammar/model.js';
import { joinPath, pathSegment } from '../../grammar/naming.js';
import { parseExpression } from '../../grammar/expression.js';
import { planScope, scopePaths, scopeSources } from '../../grammar/scope-plan.js';
import { resolveSecurity } from './security-settings.js';
import type { CollectionSpec } from '../store/types.js';
import { loadHandlers } from './async-settings.js';
import { loadGraphQlOperations, type DeclaredGraphQlOperation } from './graphql-operations.js';
import {
  genidRoute,
  inheritedOptions,
  loadOperation,
  notExposedRoute,
  type OperationContext,
} from './load-operation.js';
import { storedRelations } from './item-iris.js';
import { assertionsOf, fieldRules, fieldType, loadProperty } from './load-property.js';
import { keepCheckedRequirements } from './stored-requirements.js';
import { resolveSettings } from './settings.js';
import type { ApiMetadata, FilterKind, FilterMetadata, PropertyMetadata, ResourceMetadata, Settings } from './types.js';
import { applyMutators, loadMutators, plainEntries, type Mutators, type Plain } from './written-options.js';

/** The operations of a resource's `graphql` block as written; undefined without a block (the loader's defaults). */
const declaredGraphQl = (source: ModelResource): DeclaredGraphQlOperation[] | undefined =>
  source.graphql?.map((op) => ({
    kind: op.kind,
    ...(op.name === undefined ? {} : { name: op.name }),
    options: plainEntries(op.decl.body?.entries),
  }));

/**
 * The field lists whose values must not repeat: each property with `unique: true`, then the resource's
 * `unique: [[…], …]` (composite), as the store enforces them.
 */
function uniqueLists(properties: PropertyMetadata[], resourceOption: unknown): string[][] {
  const lists = properties.filter((p) => p.unique).map((p) => [p.name]);
  if (Array.isArray(resourceOption))
    for (const list of resourceOption) if (Array.isArray(list)) lists.push(list.map(String));
  return lists;
}

/**
 * Properties that filters, orders and cursors of the resource's operations use, and every relation (a delete
 * of its target looks its referrers up, pipeline/relations/referential-actions.ts): indexed. A to-many relation's index is on its
 * elements (the stores index each IRI of the array).
 */
function indexes(resource: ResourceMetadata, model: ApiModel): string[][] {
  const id = resource.identifier?.name;
  const out: string[][] = [];
  const add = (fields: string[]): void => addIndex(resource, out, fields);
  for (const p of resource.properties) {
    if (p.relation && p.array) out.push([p.name]);
    else if (p.relation) add([p.name]);
  }
  for (const op of resource.operations) {
    for (const name of (op.options.filters as string[] | undefined) ?? []) {
      const filter = model.filters.get(name);
      if (!filter || !FILTER_KINDS.some((k) => k.name === filter.kind)) continue;
      for (const p of filter.properties) add([p.name]);
    }
    // Sub-resources select by their URI variables' properties (pipeline/relations/links.ts).
    const links = Array.isArray(op.options.links)
      ? (op.options.links as { parameterName?: unknown; toProperty?: unknown }[])
      : [];
    for (const name of op.uriVariables) {
      const link = links.find((l) => l?.parameterName === name);
      if (name !== id) add([typeof link?.toProperty === 'string' ? link.toProperty : name]);
    }
    const cursor = op.options.paginationViaCursor as { field?: string }[] | undefined;
    if (Array.isArray(cursor)) add([...cursor.map((c) => String(c.field)), ...(id ? [id] : [])]);
    // Every read of a scoped operation filters on its scope's own properties (docs/scopes.md); a path through a
    // relation, on the relation, which the identifier's index with it lets a page in key order test without
    // reading each item (the SQLite store reads that index; PostgreSQL's ends with the key anyway).
    for (const names of scopePropertyPaths(op.options.scope))
      if (names.length === 1) add(names);
      else if (id) add([id, names[0]!]);
  }
  return out;
}

/** Adds an index on `fields` (those a store can index) to `out` unless it holds it already. */
function addIndex(resource: ResourceMetadata, out: string[][], fields: string[]): void {
  const valid = fields.filter((f) =>
    resource.properties.some((p) => p.name === f && !p.array && fieldType(p) !== 'json'),
  );
  if (valid.length && !out.some((x) => x.join() === valid.join())) out.push(valid);
}

/**
 * A scope's path through relations (`object.shop.owner`) reads the related items by the property it ends on: the
 * sub-query (or first read) of the matching shops is an index search rather than a scan of every shop. Run once
 * every resource is loaded (a path may lead to one loaded after the scoped one).
 */
function indexScopeTargets(resources: ResourceMetadata[]): void {
  const byName = new Map(resources.map((r) => [r.shortName, r]));
  for (const resource of resources)
    for (const op of resource.operations)
      for (const names of scopePropertyPaths(op.options.scope)) {
        let at: ResourceMetadata | undefined = resource;
        for (const name of names.slice(0, -1)) {
          const relation: string | undefined = at?.properties.find((p) => p.name === name && !p.array)?.relation;
          at = relation === undefined ? undefined : byName.get(relation);
        }
        if (at && at !== resource) addIndex(at, at.storage.indexes, names.slice(-1));
      }
}

/** The paths of the item a `scope` option's expressions read (`[['owner'], ['shop', 'owner']]`). */
function scopePropertyPaths(scope: unknown): string[][] {
  const sources = scopeSources(scope);
  return [sources?.read, sources?.write].flatMap((source) => {
    if (source === undefined) return [];
    const parsed = parseExpression(source);
    const planned = parsed.ok ? planScope(parsed.ast) : undefined;
    return planned?.ok ? scopePaths(planned.plan).map((p) => p.names) : [];
  });
}

interface LoadOptions {
  /** Directory of the .api file: custom code paths are relative to it. */
  baseDir: string;
}

export async function loadMetadata(model: ApiModel, options: LoadOptions): Promise<ApiMetadata> {
  const settings: Settings = resolveSettings(model.config);
  const security = await resolveSecurity(model.config, options.baseDir);
  const mutators = await loadMutators(model, options.baseDir);
  const resources: ResourceMetadata[] = [];
  for (const source of model.resources.values()) {
    const resource = await loadResource(source, model, settings, options.baseDir, mutators);
    // One resource without an identifier carries the route that generates IRIs for all of them.
    if (!resource.identifier && !resources.some((r) => !r.identifier)) resource.operations.push(genidRoute(resource));
    resource.storage.indexes = indexes(resource, model);
    keepCheckedRequirements(resource, settings);
    resources.push(resource);
  }
  const api = A.resources(model.document).length
    ? model.document.declarations.find((d): d is A.ApiDecl => d.kind === 'api')
    : undefined;
  const apiFields = plainEntries(api?.body?.entries);
  indexScopeTargets(resources);
  const byName = new Map(resources.map((r) => [r.shortName, r]));
  const resource = (name: string): ResourceMetadata | undefined => byName.get(name);
  for (const r of resources) {
    const relations = storedRelations({ resource }, r);
    if (Object.keys(relations).length > 0) r.storage.relations = relations;
  }
  return {
    filters: loadFilters(model),
    title: api?.title?.value ?? 'API',
    version: typeof apiFields.version === 'string' ? apiFields.version : undefined,
    description: typeof apiFields.description === 'string' ? apiFields.description : undefined,
    settings,
    security,
    resources,
    messageHandlers: await loadHandlers(model.config, options.baseDir),
    resource,
  };
}

/** A resource: its mutated options, its properties and storage, its REST then GraphQL operations, its hidden route. */
async function loadResource(
  source: ModelResource,
  model: ApiModel,
  settings: Settings,
  baseDir: string,
  mutators: Mutators,
): Promise<ResourceMetadata> {
  const written = { shortName: source.name, ...plainEntries(source.decl.options) };
  const resource = resourceOf(source, model, await applyMutators(written, mutators.resources.get(source.name)));
  const inherited = inheritedOptions(resource);
  const context: OperationContext = { model, baseDir, operationMutators: mutators.operations, inherited };
  for (const op of source.operations) resource.operations.push(await loadOperation(op, resource, context));
  resource.graphQlOperations = settings.graphql.enabled
    ? await loadGraphQlOperations(resource, declaredGraphQl(source), inherited, baseDir)
    : [];
  const notExposed = notExposedRoute(resource);
  if (notExposed) resource.operations.push(notExposed);
  return resource;
}

/** A resource's own metadata from its options after its mutators, its operations not yet loaded. */
function resourceOf(source: ModelResource, model: ApiModel, mutated: Plain): ResourceMetadata {
  const shortName = String(mutated.shortName ?? source.name);
  const routePrefix = typeof mutated.routePrefix === 'string' ? mutated.routePrefix : undefined;
  const properties = [...source.properties.values()].map((p) =>
    loadProperty(p, model.resources, p === source.identifier),
  );
  const identifier = properties.find((p) => p.identifier);
  const collectionPath = joinPath(routePrefix, `/${pathSegment(shortName, model.pathSegmentGenerator)}`);
  const options: Plain = { ...mutated };
  delete options.shortName;
  const asserts = assertionsOf(mutated.assert);
  return {
    name: source.name,
    shortName,
    ...(asserts ? { asserts } : {}),
    description: typeof mutated.description === 'string' ? mutated.description : undefined,
    properties,
    identifier,
    collectionPath,
    itemPath: identifier ? `${collectionPath}/{${identifier.name}}` : undefined,
    operations: [],
    graphQlOperations: [],
    options,
    storage: storageOf(shortName, properties, mutated.unique, mutated.stateOptions),
  };
}

/**
 * What the store keeps of a resource: its fields, identifier, rules and unique lists (indexes come after its
 * operations), and the table a relational store keeps it in (`stateOptions: { table }`).
 */
function storageOf(
  name: string,
  properties: PropertyMetadata[],
  unique: unknown,
  stateOptions: unknown,
): CollectionSpec {
  const identifier = properties.find((p) => p.identifier);
  const table = (stateOptions as Plain | undefined)?.table;
  return {
    name,
    ...(typeof table === 'string' && table !== '' ? { table } : {}),
    identifier: identifier ? { field: identifier.name, type: identifier.type === 'int' ? 'int' : 'string' } : undefined,
    fields: Object.fromEntries(properties.map((p) => [p.name, fieldType(p)])),
    indexes: [],
    unique: uniqueLists(properties, unique),
    rules: Object.fromEntries(properties.filter((p) => !p.identifier).map((p) => [p.name, fieldRules(p)])),
  };
}

function loadFilters(model: ApiModel): Map<string, FilterMetadata> {
  const out = new Map<string, FilterMetadata>();
  for (const [name, filter] of model.filters) {
    const kind = filter.kind as FilterKind | undefined;
    if (!kind || !FILTER_KINDS.some((k) => k.name === kind)) continue;
    const properties = filter.properties.map((p) =>
      p.setting === undefined ? { name: p.name } : { name: p.name, setting: p.setting },
    );
    const description = A.toPlain(A.entryOf(filter.decl.body, 'description')?.value);
    out.set(name, { name, kind, properties, ...(typeof description === 'string' ? { description } : {}) });
  }
  return out;
}
