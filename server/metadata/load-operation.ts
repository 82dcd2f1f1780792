/**
 * An operation's runtime metadata: the options its resource passes down under its own, its mutators applied, its
 * route (written or generated), its custom code imported; and the hidden routes that only answer 404.
 */
import { COLLECTION_KINDS, LISTING_KINDS, OPTIONS, type OperationKind } from '../../grammar/catalogue/index.js';
import type { ApiModel, ModelOperation } from '../../grammar/model.js';
import { defaultOperationName, joinPath, pathSegment, placeholders } from '../../grammar/naming.js';
import { loadCode, type CodeFunction } from './code.js';
import type { OperationMetadata, ResourceMetadata } from './types.js';
import { applyMutators, plainEntries, type Mutator, type Plain } from './written-options.js';

/** Operation options a resource passes down to its operations (routing options stay per operation). */
const INHERITED = new Set<string>(
  OPTIONS.filter((o) => o.group === 'operation' && o.placement.resource).map((o) => o.name),
);
/** Keys of an operation's written options that are its own fields, not options. */
const OWN_FIELDS = ['name', 'kind', 'method', 'uriTemplate', 'shortName'];

export const NOT_EXPOSED_DETAIL = 'This route does not aim to be called.';
export const GENID_DETAIL =
  'This route is not exposed on purpose. It generates an IRI for a collection resource without identifier nor item operation.';
export const GENID_PATH = '/.well-known/genid/{id}';

/** What loading a resource's operations shares. */
export interface OperationContext {
  model: ApiModel;
  /** Directory of the .api file: custom code paths are relative to it. */
  baseDir: string;
  operationMutators: Map<string, Mutator[]>;
  /** The options of the resource that its operations inherit (`inheritedOptions`). */
  inherited: Plain;
}

/** The resource's options that its operations inherit. */
export function inheritedOptions(resource: ResourceMetadata): Plain {
  const inherited: Plain = {};
  for (const [k, v] of Object.entries(resource.options)) if (INHERITED.has(k)) inherited[k] = v;
  return inherited;
}

export async function loadOperation(
  op: ModelOperation,
  resource: ResourceMetadata,
  context: OperationContext,
): Promise<OperationMetadata> {
  const kind = op.kind as OperationKind;
  const own = plainEntries(op.decl?.body?.entries);
  const before: Plain = {
    ...context.inherited,
    ...own,
    name: op.name,
    kind,
    method: op.method,
    uriTemplate: own.uriTemplate,
  };
  const after = await applyMutators(before, context.operationMutators.get(op.name));
  const method = String(after.method ?? op.method ?? 'GET').toUpperCase();
  // An operation's own shortName names its generated route as the resource's names the others.
  const shortName = typeof after.shortName === 'string' ? after.shortName : resource.shortName;
  const path = routeOf(resource, kind, shortName, after.uriTemplate, context.model);
  const options: Plain = { ...after };
  for (const k of OWN_FIELDS) delete options[k];
  const what = (role: string): string => `${role} of ${op.name}`;
  return {
    name: typeof after.name === 'string' ? after.name : defaultOperationName(path, method.toLowerCase(), kind),
    kind,
    method,
    resource,
    shortName,
    path,
    uriVariables: placeholders(path),
    isCollection: LISTING_KINDS.includes(kind),
    hidden: false,
    options,
    provider: await codeOf(options.provider, context.baseDir, what('provider')),
    processor: await codeOf(options.processor, context.baseDir, what('processor')),
    controller:
      options.controller === 'NotFoundAction'
        ? 'NotFoundAction'
        : await codeOf(options.controller, context.baseDir, what('controller')),
  };
}

/** The written `uriTemplate` after the route prefix, else the collection or item path of the operation's short name. */
function routeOf(
  resource: ResourceMetadata,
  kind: OperationKind,
  shortName: string,
  uriTemplate: unknown,
  model: ApiModel,
): string {
  const routePrefix = typeof resource.options.routePrefix === 'string' ? resource.options.routePrefix : undefined;
  if (typeof uriTemplate === 'string') return joinPath(routePrefix, uriTemplate);
  const collectionPath =
    shortName === resource.shortName
      ? resource.collectionPath
      : joinPath(routePrefix, `/${pathSegment(shortName, model.pathSegmentGenerator)}`);
  const identifier = resource.identifier;
  return COLLECTION_KINDS.includes(kind) || !identifier ? collectionPath : `${collectionPath}/{${identifier.name}}`;
}

async function codeOf(value: unknown, baseDir: string, what: string): Promise<CodeFunction | undefined> {
  return typeof value === 'string' ? loadCode(value, baseDir, what) : undefined;
}

/**
 * The seed: a resource with an identifier and no item Get still has item IRIs, served by a hidden route that always
 * answers 404. Undefined when the resource needs none.
 */
export function notExposedRoute(resource: ResourceMetadata): OperationMetadata | undefined {
  if (!resource.itemPath || resource.operations.some((o) => o.method === 'GET' && !o.isCollection)) return undefined;
  const name = `_api_${resource.itemPath}_get_not_exposed`.toLowerCase();
  return hiddenOperation(resource, resource.itemPath, name, NOT_EXPOSED_DETAIL);
}

/** The hidden route that generates IRIs for the items of a resource without an identifier. */
export const genidRoute = (resource: ResourceMetadata): OperationMetadata =>
  hiddenOperation(resource, GENID_PATH, '_api_genid', GENID_DETAIL);

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
