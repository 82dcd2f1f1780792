/**
 * The semantic model of a parsed file: resources with their properties, identifier, routes
 * and operations (declared or default), filters, and global settings. Built tolerantly from
 * a possibly broken AST; the checker reports what is wrong with it, and the server resolves
 * its runtime metadata from it.
 */
import * as A from './ast.js';
import {
  COLLECTION_KINDS,
  GRAPHQL_KINDS,
  KIND_METHOD,
  OPERATION_KINDS,
  type OperationKind,
} from './catalogue/types.js';
import { defaultOperationName, graphQlFieldName, joinPath, pathSegment, type PathSegmentGenerator } from './naming.js';

export interface ModelProperty {
  name: string;
  decl: A.PropertyDecl;
  /** Base type name (`int`, `Author`, …) and whether it is an array. */
  type: string | undefined;
  array: boolean;
  constraints: Map<string, A.Entry>;
}

export interface ModelOperation {
  /** Undefined for an operation registered by default (no `operations` block). */
  decl: A.OperationDecl | undefined;
  kind: string;
  known: boolean;
  resource: ModelResource;
  options: Map<string, A.Entry>;
  method: string | undefined;
  /** The route, route prefix included. */
  path: string;
  /** Written `uriTemplate` (undefined: the generated path). */
  uriTemplate: string | undefined;
  name: string;
  /** Whether the name came from the declaration (`Get weather`) or the `name` option. */
  named: boolean;
  /** Whether its default route is the collection path (`/books`: GetCollection, Post, Query), not the item path. */
  collectionRoute: boolean;
}

/** An operation of a resource's `graphql` block. */
export interface ModelGraphQlOperation {
  decl: A.OperationDecl;
  /** The kind as written (`Query`, `Mutation`, …, or an unknown word). */
  kind: string;
  known: boolean;
  /** The name after the kind (`create`, `byIsbn`), else the `name` option. */
  name: string | undefined;
  resource: ModelResource;
  options: Map<string, A.Entry>;
  /** Its root field (`book`, `createBook`, `byIsbnBook`); undefined for an unknown kind or a mutation without a name. */
  fieldName: string | undefined;
}

export interface ModelResource {
  decl: A.ResourceDecl;
  name: string;
  /** Its `shortName` option, default its name: the @type and context its operations share by default. */
  shortName: string;
  properties: Map<string, ModelProperty>;
  identifier: ModelProperty | undefined;
  options: Map<string, A.Entry>;
  routePrefix: string | undefined;
  collectionPath: string;
  itemPath: string | undefined;
  operations: ModelOperation[];
  /** True when an `operations` block is present (even empty). */
  explicitOperations: boolean;
  /**
   * The operations of its `graphql` blocks, in declaration order; undefined without a block (then, while
   * `config graphql.enabled`, it gets API Platform's defaults: catalogue/graphql.ts).
   */
  graphql: ModelGraphQlOperation[] | undefined;
}

/** A name in a filter's `properties`. */
export interface ModelFilterProperty {
  name: string;
  /** The list item or map key that names it: where a finding about the property goes. */
  range: A.Range;
  /** In a map (`properties: { title: partial }`), the setting written for it, as a word. */
  setting?: string;
}

export interface ModelFilter {
  decl: A.FilterDecl;
  name: string;
  /** The kind as written (`search`, `range`, …); whether the catalogue knows it is the checker's business. */
  kind: string | undefined;
  /**
   * Its `properties`, read once for the checker, the fixes, the editor and the server: a list of names or a
   * map from name to setting, in the order written. Items that are no name are left out (the checker reports
   * a value of the wrong type; `null` means nothing).
   */
  properties: readonly ModelFilterProperty[];
}

export interface ApiModel {
  document: A.Document;
  resources: Map<string, ModelResource>;
  filters: Map<string, ModelFilter>;
  config: A.ObjectValue | undefined;
  pathSegmentGenerator: PathSegmentGenerator;
}

const DEFAULT_KINDS: OperationKind[] = ['GetCollection', 'Post', 'Get', 'Patch', 'Delete'];
const COLLECTION_ROUTE_KINDS = new Set<string>(COLLECTION_KINDS);

/** The first entry of each key (duplicates are the checker's business). */
export function entryMap(entries: A.Entry[] | undefined): Map<string, A.Entry> {
  const map = new Map<string, A.Entry>();
  for (const e of entries ?? []) if (!map.has(e.key.text)) map.set(e.key.text, e);
  return map;
}

/** A setting's value in a `config` body by dotted path, e.g. `collection.pagination.page_parameter_name`. */
export function configEntry(config: A.ObjectValue | undefined, path: string): A.Entry | undefined {
  let obj: A.Value | undefined = config;
  let entry: A.Entry | undefined;
  for (const part of path.split('.')) {
    if (obj?.kind !== 'object') return undefined;
    entry = A.entryOf(obj, part);
    obj = entry?.value;
  }
  return entry;
}

/** A plain string from a string or bare-word value. */
export function wordOf(value: A.Value | undefined): string | undefined {
  if (value?.kind === 'string') return value.value;
  if (value?.kind === 'ident') return value.name;
  return undefined;
}

function identifierOf(properties: Map<string, ModelProperty>): ModelProperty | undefined {
  for (const p of properties.values()) {
    const flag = p.constraints.get('identifier')?.value;
    if (flag?.kind === 'bool' && flag.value) return p;
  }
  return properties.get('id');
}

function buildOperation(
  resource: ModelResource,
  kind: string,
  decl: A.OperationDecl | undefined,
  generator: PathSegmentGenerator,
): ModelOperation {
  const options = entryMap(decl?.body?.entries);
  const known = (OPERATION_KINDS as readonly string[]).includes(kind);
  const method = (
    wordOf(options.get('method')?.value) ?? (known ? KIND_METHOD[kind as OperationKind] : undefined)
  )?.toUpperCase();
  const uriTemplate = wordOf(options.get('uriTemplate')?.value);
  const collectionRoute = COLLECTION_ROUTE_KINDS.has(kind);
  // An operation's own shortName names its generated route (the runtime does the same, metadata/load.ts).
  const shortName = wordOf(options.get('shortName')?.value);
  const collectionPath =
    shortName === undefined
      ? resource.collectionPath
      : joinPath(resource.routePrefix, `/${pathSegment(shortName, generator)}`);
  const defaultPath =
    collectionRoute || !resource.identifier ? collectionPath : `${collectionPath}/{${resource.identifier.name}}`;
  const path = uriTemplate !== undefined ? joinPath(resource.routePrefix, uriTemplate) : defaultPath;
  const explicitName = decl?.name?.text ?? wordOf(options.get('name')?.value);
  return {
    decl,
    kind,
    known,
    resource,
    options,
    method,
    path,
    uriTemplate,
    name: explicitName ?? defaultOperationName(path, (method ?? 'get').toLowerCase(), kind),
    named: explicitName !== undefined,
    collectionRoute,
  };
}

function buildGraphQlOperation(resource: ModelResource, decl: A.OperationDecl): ModelGraphQlOperation {
  const options = entryMap(decl.body?.entries);
  const kind = decl.opKind.text;
  const name = decl.name?.text ?? wordOf(options.get('name')?.value);
  return {
    decl,
    kind,
    known: (GRAPHQL_KINDS as readonly string[]).includes(kind),
    name,
    resource,
    options,
    fieldName: graphQlFieldName(kind, name, resource.shortName),
  };
}

function buildFilter(decl: A.FilterDecl, name: string): ModelFilter {
  const written = A.entryOf(decl.body, 'properties')?.value;
  let properties: ModelFilterProperty[] = [];
  if (written?.kind === 'array')
    properties = written.items.flatMap((item) => {
      const word = wordOf(item);
      return word === undefined ? [] : [{ name: word, range: item.range }];
    });
  else if (written?.kind === 'object')
    properties = written.entries.map((e) => {
      const setting = wordOf(e.value);
      return setting === undefined
        ? { name: e.key.text, range: e.key.range }
        : { name: e.key.text, range: e.key.range, setting };
    });
  return { decl, name, kind: decl.filterKind?.text, properties };
}

export function buildModel(document: A.Document): ApiModel {
  const config = A.configs(document)[0]?.body;
  const generator =
    wordOf(configEntry(config, 'path_segment_name_generator')?.value) === 'dash' ? 'dash' : 'underscore';
  const resources = new Map<string, ModelResource>();
  for (const decl of A.resources(document)) {
    if (!decl.name || resources.has(decl.name.text)) continue;
    const properties = new Map<string, ModelProperty>();
    for (const block of decl.propertiesBlocks) {
      for (const p of block.properties) {
        if (properties.has(p.name.text)) continue;
        properties.set(p.name.text, {
          name: p.name.text,
          decl: p,
          type: p.type?.name,
          array: p.type?.array ?? false,
          constraints: entryMap(p.constraints?.entries),
        });
      }
    }
    const options = entryMap(decl.options);
    const routePrefix = wordOf(options.get('routePrefix')?.value);
    const identifier = identifierOf(properties);
    const shortName = wordOf(options.get('shortName')?.value) ?? decl.name.text;
    const collectionPath = joinPath(routePrefix, `/${pathSegment(shortName, generator)}`);
    const resource: ModelResource = {
      decl,
      name: decl.name.text,
      shortName,
      properties,
      identifier,
      options,
      routePrefix,
      collectionPath,
      itemPath: identifier ? `${collectionPath}/{${identifier.name}}` : undefined,
      operations: [],
      explicitOperations: decl.operationsBlocks.length > 0,
      graphql: undefined,
    };
    if (decl.graphqlBlocks.length > 0)
      resource.graphql = decl.graphqlBlocks.flatMap((b) =>
        b.operations.map((op) => buildGraphQlOperation(resource, op)),
      );
    if (resource.explicitOperations) {
      for (const block of decl.operationsBlocks)
        for (const op of block.operations)
          resource.operations.push(buildOperation(resource, op.opKind.text, op, generator));
    } else {
      const kinds = identifier ? DEFAULT_KINDS : DEFAULT_KINDS.filter((k) => COLLECTION_ROUTE_KINDS.has(k));
      for (const kind of kinds) resource.operations.push(buildOperation(resource, kind, undefined, generator));
    }
    resources.set(resource.name, resource);
  }
  const filters = new Map<string, ModelFilter>();
  for (const decl of A.filters(document))
    if (decl.name && !filters.has(decl.name.text)) filters.set(decl.name.text, buildFilter(decl, decl.name.text));
  return { document, resources, filters, config, pathSegmentGenerator: generator };
}

/** Every operation of the file, in declaration order. */
export const allOperations = (model: ApiModel): ModelOperation[] =>
  [...model.resources.values()].flatMap((r) => r.operations);
