/**
 * Loads the runtime metadata of a checked `.api` file, once: resources and their properties,
 * operations (declared or default) with resource-level options merged under their own,
 * resource then operation mutators applied (at load, result cached; docs/language.md),
 * routes and the hidden IRI routes, custom code imported, storage specs derived.
 */
import * as A from '../../grammar/ast.js';
import {
  CONSTRAINTS,
  ON_DELETE_ACTIONS,
  COLLECTION_KINDS,
  FILTER_KINDS,
  LISTING_KINDS,
  OPTIONS,
  type OperationKind,
} from '../../grammar/catalogue/index.js';
import type { ApiModel, ModelProperty, ModelResource } from '../../grammar/model.js';
import { defaultOperationName, joinPath, pathSegment, placeholders } from '../../grammar/naming.js';
import { compileAssertion, compileDefaultValue, compileGuard } from '../expression/guard.js';
import { resolveSecurity } from './security-settings.js';
import type { CollectionSpec, FieldRules, FieldType } from '../store/types.js';
import { loadHandlers } from './async-settings.js';
import { loadCode } from './code.js';
import { loadGraphQlOperations, type DeclaredGraphQlOperation } from './graphql-operations.js';
import { resolveSettings } from './settings.js';
import type {
  ApiMetadata,
  Assertion,
  CodeFunction,
  FilterKind,
  FilterMetadata,
  OperationMetadata,
  PropertyMetadata,
  ResourceMetadata,
  Settings,
} from './types.js';

/** Operation options a resource passes down to its operations (routing options stay per operation). */
const INHERITED = new Set<string>(
  OPTIONS.filter((o) => o.group === 'operation' && o.placement.resource).map((o) => o.name),
);
/** The catalogue's validation constraints (written in object form or not); with `nullable`, what makes a property constrained. */
const VALIDATED = CONSTRAINTS.filter((c) => c.validation).map((c) => c.name);
const VALIDATION_CONSTRAINTS = [...VALIDATED, 'nullable'];

export const NOT_EXPOSED_DETAIL = 'This route does not aim to be called.';
export const GENID_DETAIL =
  'This route is not exposed on purpose. It generates an IRI for a collection resource without identifier nor item operation.';
export const GENID_PATH = '/.well-known/genid/{id}';

type Plain = Record<string, unknown>;
/** A metadata mutator as load() calls it (published as `Mutator`, types/apidsl.d.ts). */
export type Mutator = (metadata: Plain) => Plain | Promise<Plain>;

const plainEntries = (entries: A.Entry[] | undefined): Plain => {
  const out: Plain = {};
  for (const e of entries ?? []) if (!(e.key.text in out)) out[e.key.text] = A.toPlain(e.value);
  return out;
};

/** The operations of a resource's `graphql` block as written; undefined without a block (the loader's defaults). */
const declaredGraphQl = (source: ModelResource): DeclaredGraphQlOperation[] | undefined =>
  source.graphql?.map((op) => ({
    kind: op.kind,
    ...(op.name === undefined ? {} : { name: op.name }),
    options: plainEntries(op.decl.body?.entries),
  }));

/** Unwraps validation constraints written `{ value, groups, message }`; their groups and messages go to `validation`. */
function unwrapValidation(c: Plain): PropertyMetadata['validation'] {
  let out: PropertyMetadata['validation'];
  for (const name of VALIDATION_CONSTRAINTS) {
    const form = c[name];
    if (typeof form !== 'object' || form === null || Array.isArray(form) || !('value' in form)) continue;
    const { value, groups, message } = form as Plain;
    c[name] = value;
    out ??= {};
    out[name] = {
      groups: Array.isArray(groups) ? groups.map(String) : ['Default'],
      ...(typeof message === 'string' ? { message } : {}),
    };
  }
  return out;
}

function property(p: ModelProperty, resources: ApiModel['resources'], isIdentifier: boolean): PropertyMetadata {
  const c = plainEntries([...p.constraints.values()]);
  const validation = unwrapValidation(c);
  const type = p.type ?? 'json';
  const serverDefault = serverDefaultOf(c.default, type);
  if (serverDefault !== undefined) delete c.default;
  const onUpdate = c.onUpdate === 'now' && (type === 'datetime' || type === 'date');
  const serverSet = serverDefault !== undefined || onUpdate;
  const meta: PropertyMetadata = {
    name: p.name,
    type,
    array: p.array,
    identifier: isIdentifier,
    required: c.required === true,
    nullable: c.nullable !== false,
    // An int identifier is the store's to assign (as API Platform's generated ids): read-only unless the file
    // says `readOnly: false`. A string identifier is the client's to choose (else a UUID v7 is assigned).
    // A value the server sets is read-only too, unless `readOnly: false` lets a client give it.
    readOnly: c.readOnly === true || ((serverSet || (isIdentifier && type === 'int')) && c.readOnly !== false),
    writeOnly: c.writeOnly === true,
    constrained: VALIDATION_CONSTRAINTS.some((k) => k in c),
    throwOnAccessDenied: c.throwOnAccessDenied === true,
  };
  if (serverDefault !== undefined) meta.serverDefault = serverDefault;
  if (onUpdate) meta.onUpdate = 'now';
  if (typeof c.security === 'string') meta.security = compileGuard(c.security);
  if (typeof c.securityPostDenormalize === 'string')
    meta.securityPostDenormalize = compileGuard(c.securityPostDenormalize);
  if (resources.has(type)) {
    meta.relation = type;
    meta.onDelete = ON_DELETE_ACTIONS.find((a) => a === c.onDelete) ?? 'restrict';
    if (typeof c.maxDepth === 'number') meta.maxDepth = c.maxDepth;
    if (c.owned === true && meta.array) meta.owned = true;
  }
  if (validation) meta.validation = validation;
  if (c.unique === true) meta.unique = true;
  const asserts = assertionsOf(c.assert);
  if (asserts) meta.asserts = asserts;
  for (const key of ['default', ...VALIDATED.filter((name) => name !== 'required'), 'groups', 'description']) {
    if (c[key] !== undefined && c[key] !== null) (meta as unknown as Plain)[key] = c[key];
  }
  return meta;
}

/**
 * A `default` the server computes: the bare word `now` (the checker allows it on datetime and date only, where a
 * string "now" is no valid literal) or `{ expression: "…" }`; undefined for a literal default.
 */
function serverDefaultOf(value: unknown, type: string): PropertyMetadata['serverDefault'] {
  if (value === 'now' && (type === 'datetime' || type === 'date')) return 'now';
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const keys = Object.keys(value);
  const source = (value as Plain).expression;
  return keys.length === 1 && typeof source === 'string' ? compileDefaultValue(source) : undefined;
}

function fieldType(p: PropertyMetadata): FieldType {
  if (p.array) return 'array';
  if (p.relation) return 'iri';
  return (['int', 'number', 'string', 'bool', 'datetime', 'date'].includes(p.type) ? p.type : 'json') as FieldType;
}

/** The `assert` constraints written (one object or a list), compiled; undefined when there are none. */
function assertionsOf(written: unknown): Assertion[] | undefined {
  if (written === undefined || written === null) return undefined;
  const list = (Array.isArray(written) ? written : [written]) as Plain[];
  return list.map((a) => ({
    expression: compileAssertion(String(a.expression)),
    ...(typeof a.message === 'string' ? { message: a.message } : {}),
    groups: Array.isArray(a.groups) ? a.groups.map(String) : ['Default'],
  }));
}

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

/** What the store records of a property's rules, to compare a later file with (store/layout.ts). */
function fieldRules(p: PropertyMetadata): FieldRules {
  const rules: FieldRules = {};
  if (p.required) rules.required = true;
  for (const key of ['default', 'minimum', 'maximum', 'minLength', 'maxLength', 'pattern', 'enum'] as const) {
    if (p[key] !== undefined) (rules as Record<string, unknown>)[key] = p[key];
  }
  return rules;
}

/**
 * Properties that filters, orders and cursors of the resource's operations use, and every relation (a delete
 * of its target looks its referrers up, pipeline/relations/referential-actions.ts): indexed. A to-many relation's index is on its
 * elements (the stores index each IRI of the array).
 */
function indexes(resource: ResourceMetadata, model: ApiModel): string[][] {
  const id = resource.identifier?.name;
  const out: string[][] = [];
  const add = (fields: string[]): void => {
    const valid = fields.filter((f) =>
      resource.properties.some((p) => p.name === f && !p.array && fieldType(p) !== 'json'),
    );
    if (valid.length && !out.some((x) => x.join() === valid.join())) out.push(valid);
  };
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
  }
  return out;
}

async function codeOf(value: unknown, baseDir: string, what: string): Promise<CodeFunction | undefined> {
  return typeof value === 'string' ? loadCode(value, baseDir, what) : undefined;
}

async function applyMutators(target: Plain, mutators: Mutator[]): Promise<Plain> {
  let current = target;
  for (const m of mutators) current = (await m(current)) ?? current;
  return current;
}

interface LoadOptions {
  /** Directory of the .api file: custom code paths are relative to it. */
  baseDir: string;
}

export async function loadMetadata(model: ApiModel, options: LoadOptions): Promise<ApiMetadata> {
  const settings: Settings = resolveSettings(model.config);
  const security = await resolveSecurity(model.config, options.baseDir);
  const resourceMutators = new Map<string, Mutator[]>();
  const operationMutators = new Map<string, Mutator[]>();
  for (const m of A.mutators(model.document)) {
    if (!m.target || !m.ref) continue;
    const fn = (await loadCode(
      m.ref.value,
      options.baseDir,
      `mutator ${m.targetKind?.text} ${m.target.text}`,
    )) as Mutator;
    const map = m.targetKind?.text === 'resource' ? resourceMutators : operationMutators;
    map.set(m.target.text, [...(map.get(m.target.text) ?? []), fn]);
  }

  const resources: ResourceMetadata[] = [];
  let genidTaken = false;
  for (const source of model.resources.values()) {
    const resource = await loadResource(source, model, settings, options.baseDir, resourceMutators, operationMutators);
    if (!resource.identifier && !genidTaken) {
      genidTaken = true;
      resource.operations.push(hiddenOperation(resource, GENID_PATH, '_api_genid', GENID_DETAIL));
    }
    resource.storage.indexes = indexes(resource, model);
    resources.push(resource);
  }
  const api = A.resources(model.document).length
    ? model.document.declarations.find((d): d is A.ApiDecl => d.kind === 'api')
    : undefined;
  const apiFields = plainEntries(api?.body?.entries);
  const byName = new Map(resources.map((r) => [r.shortName, r]));
  return {
    filters: loadFilters(model),
    title: api?.title?.value ?? 'API',
    version: typeof apiFields.version === 'string' ? apiFields.version : undefined,
    description: typeof apiFields.description === 'string' ? apiFields.description : undefined,
    settings,
    security,
    resources,
    messageHandlers: await loadHandlers(model.config, options.baseDir),
    resource: (name) => byName.get(name),
  };
}

async function loadResource(
  source: ModelResource,
  model: ApiModel,
  settings: Settings,
  baseDir: string,
  resourceMutators: Map<string, Mutator[]>,
  operationMutators: Map<string, Mutator[]>,
): Promise<ResourceMetadata> {
  const mutated = await applyMutators(
    { shortName: source.name, ...plainEntries(source.decl.options) },
    resourceMutators.get(source.name) ?? [],
  );
  const shortName = String(mutated.shortName ?? source.name);
  const routePrefix = typeof mutated.routePrefix === 'string' ? mutated.routePrefix : undefined;
  const properties = [...source.properties.values()].map((p) => property(p, model.resources, p === source.identifier));
  const identifier = properties.find((p) => p.identifier);
  const collectionPath = joinPath(routePrefix, `/${pathSegment(shortName, model.pathSegmentGenerator)}`);
  const resourceOptions: Plain = { ...mutated };
  delete resourceOptions.shortName;
  const asserts = assertionsOf(mutated.assert);
  const resource: ResourceMetadata = {
    shortName,
    ...(asserts ? { asserts } : {}),
    description: typeof mutated.description === 'string' ? mutated.description : undefined,
    properties,
    identifier,
    collectionPath,
    itemPath: identifier ? `${collectionPath}/{${identifier.name}}` : undefined,
    operations: [],
    graphQlOperations: [],
    options: resourceOptions,
    storage: {
      name: shortName,
      identifier: identifier
        ? { field: identifier.name, type: identifier.type === 'int' ? 'int' : 'string' }
        : undefined,
      fields: Object.fromEntries(properties.map((p) => [p.name, fieldType(p)])),
      indexes: [],
      unique: uniqueLists(properties, mutated.unique),
      rules: Object.fromEntries(properties.filter((p) => !p.identifier).map((p) => [p.name, fieldRules(p)])),
    } satisfies CollectionSpec,
  };
  const inherited: Plain = {};
  for (const [k, v] of Object.entries(resourceOptions)) if (INHERITED.has(k)) inherited[k] = v;

  for (const op of source.operations) {
    const kind = op.kind as OperationKind;
    const own = plainEntries(op.decl?.body?.entries);
    const before: Plain = {
      ...inherited,
      ...own,
      name: op.name,
      kind,
      method: op.method,
      uriTemplate: own.uriTemplate,
    };
    const after = await applyMutators(before, operationMutators.get(op.name) ?? []);
    const method = String(after.method ?? op.method ?? 'GET').toUpperCase();
    const template = typeof after.uriTemplate === 'string' ? after.uriTemplate : undefined;
    const isCollectionRoute = COLLECTION_KINDS.includes(kind);
    // An operation's own shortName names its generated route as the resource's names the others.
    const opShortName = typeof after.shortName === 'string' ? after.shortName : shortName;
    const opCollectionPath =
      opShortName === shortName
        ? collectionPath
        : joinPath(routePrefix, `/${pathSegment(opShortName, model.pathSegmentGenerator)}`);
    const defaultPath =
      isCollectionRoute || !identifier ? opCollectionPath : `${opCollectionPath}/{${identifier.name}}`;
    const path = template !== undefined ? joinPath(routePrefix, template) : defaultPath;
    const opts: Plain = { ...after };
    for (const k of ['name', 'kind', 'method', 'uriTemplate', 'shortName']) delete opts[k];
    const controllerRef = opts.controller;
    const meta: OperationMetadata = {
      name: typeof after.name === 'string' ? after.name : defaultOperationName(path, method.toLowerCase(), kind),
      kind,
      method,
      resource,
      shortName: opShortName,
      path,
      uriVariables: placeholders(path),
      isCollection: LISTING_KINDS.includes(kind),
      hidden: false,
      options: opts,
      provider: await codeOf(opts.provider, baseDir, `provider of ${op.name}`),
      processor: await codeOf(opts.processor, baseDir, `processor of ${op.name}`),
      controller:
        controllerRef === 'NotFoundAction'
          ? 'NotFoundAction'
          : await codeOf(controllerRef, baseDir, `controller of ${op.name}`),
    };
    resource.operations.push(meta);
  }
  resource.graphQlOperations = settings.graphql.enabled
    ? await loadGraphQlOperations(resource, declaredGraphQl(source), inherited, baseDir)
    : [];
  // The seed: a resource with an identifier and no item Get still has item IRIs, served by a
  // hidden route that always answers 404.
  if (resource.itemPath && !resource.operations.some((o) => o.method === 'GET' && !o.isCollection)) {
    resource.operations.push(
      hiddenOperation(
        resource,
        resource.itemPath,
        `_api_${resource.itemPath}_get_not_exposed`.toLowerCase(),
        NOT_EXPOSED_DETAIL,
      ),
    );
  }
  return resource;
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

function hiddenOperation(resource: ResourceMetadata, path: string, name: string, detail: string): OperationMetadata {
  return {
    name,
    kind: 'Get',
    method: 'GET',
    resource,
    shortName: resource.shortName,
    path,
    uriVariables: placeholders(path),
    isCollection: false,
    hidden: true,
    hiddenDetail: detail,
    options: {},
  };
}
