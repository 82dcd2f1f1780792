/**
 * The GraphQL operations of a resource (docs/graphql.md): those its `graphql { … }` block declares, or API
 * Platform's defaults, each with its root field name and the pipeline operation it runs. Loaded once with the rest
 * of the metadata (load.ts), only while `config graphql.enabled` is true.
 */
import { graphQlFieldName, placeholders } from '../../grammar/naming.js';
import {
  GUARD_EXPRESSIONS,
  GUARD_MESSAGES,
  graphQlTwinKinds,
  type OperationKind,
} from '../../grammar/catalogue/index.js';
import { loadCode } from './code.js';
import type {
  CodeFunction,
  GraphQlArgument,
  GraphQlKind,
  GraphQlOperationMetadata,
  OperationMetadata,
  ResourceMetadata,
} from './types.js';

/** An operation of a resource's `graphql` block: its kind, name and options as written. */
export interface DeclaredGraphQlOperation {
  kind: string;
  name?: string;
  options: Record<string, unknown>;
}

/** Options of a GraphQL operation that are not pipeline options. */
const GRAPHQL_ONLY = ['resolver', 'args', 'extraArgs', 'nested'];

/**
 * `declared` undefined (no block): API Platform's defaults — Query, QueryCollection, create, update, delete, and a
 * Subscription when the resource publishes to Mercure — each only where its REST twin exists (twinOf). A resource
 * without a Query (or QueryCollection) gets a nested one, so that relations reach its type.
 */
export async function loadGraphQlOperations(
  resource: ResourceMetadata,
  declared: DeclaredGraphQlOperation[] | undefined,
  inherited: Record<string, unknown>,
  baseDir: string,
): Promise<GraphQlOperationMetadata[]> {
  const written = declared ?? defaults(resource);
  const out: GraphQlOperationMetadata[] = [];
  for (const d of written) out.push(await operation(resource, d, inherited, baseDir));
  for (const kind of ['Query', 'QueryCollection'] as const) {
    if (!out.some((o) => o.kind === kind && !o.name))
      out.push(await operation(resource, { kind, options: { nested: true } }, inherited, baseDir));
  }
  return out;
}

function defaults(resource: ResourceMetadata): DeclaredGraphQlOperation[] {
  const ops: DeclaredGraphQlOperation[] = [
    { kind: 'Query', options: {} },
    { kind: 'QueryCollection', options: {} },
    { kind: 'Mutation', name: 'create', options: {} },
    { kind: 'Mutation', name: 'update', options: {} },
    { kind: 'DeleteMutation', name: 'delete', options: {} },
  ];
  const mercure = resource.options.mercure;
  if (mercure !== undefined && mercure !== false && mercure !== null) ops.push({ kind: 'Subscription', options: {} });
  return ops.filter((d) => twinOf(resource, d.kind as GraphQlKind, d.name, false));
}

/** The REST operation a GraphQL operation mirrors (catalogue `graphQlTwinKinds`): the first exposed one of its kind. */
export function twinOf(
  resource: ResourceMetadata,
  kind: GraphQlKind,
  name: string | undefined,
  creates: boolean,
): OperationMetadata | undefined {
  for (const k of graphQlTwinKinds(kind, name, creates)) {
    const twin = resource.operations.find((o) => o.kind === k && !o.hidden);
    if (twin) return twin;
  }
  return undefined;
}

/**
 * Secure by default (docs/graphql.md): an operation that writes none of the three security expressions runs its
 * twin's (as the twin has them, resource-level ones and mutators included), with the twin's messages where it
 * writes none of its own. One that writes any keeps its own: `apidsl check` warns where it is less guarded.
 */
function takeTwinGuards(options: Record<string, unknown>, own: Record<string, unknown>, twin: OperationMetadata) {
  if (GUARD_EXPRESSIONS.some((k) => own[k] !== undefined)) return;
  for (const k of GUARD_EXPRESSIONS) {
    delete options[k];
    if (twin.options[k] !== undefined) options[k] = twin.options[k];
  }
  for (const k of GUARD_MESSAGES)
    if (own[k] === undefined && twin.options[k] !== undefined) options[k] = twin.options[k];
}

/** The REST kind whose stages a GraphQL operation runs (types.ts, `GraphQlOperationMetadata.operation`). */
function pipelineKind(kind: GraphQlKind, name: string | undefined, args: Record<string, GraphQlArgument> | undefined) {
  if (kind === 'QueryCollection') return 'GetCollection';
  if (kind === 'Query' || kind === 'Subscription') return 'Get';
  if (kind === 'DeleteMutation') return 'Delete';
  if (name === 'create' || (args && !('id' in args))) return 'Post';
  return 'Patch';
}

const METHOD: Partial<Record<OperationKind, string>> = {
  Get: 'GET',
  GetCollection: 'GET',
  Post: 'POST',
  Patch: 'PATCH',
  Delete: 'DELETE',
};

async function operation(
  resource: ResourceMetadata,
  declared: DeclaredGraphQlOperation,
  inherited: Record<string, unknown>,
  baseDir: string,
): Promise<GraphQlOperationMetadata> {
  const kind = declared.kind as GraphQlKind;
  const written = { ...inherited, ...declared.options };
  const args = argumentsOf(written.args);
  const extraArgs = argumentsOf(written.extraArgs);
  const fieldName = graphQlFieldName(kind, declared.name, resource.shortName)!;
  const restKind = pipelineKind(kind, declared.name, args);
  const onItem = restKind !== 'GetCollection' && restKind !== 'Post' && resource.itemPath;
  const path = onItem ? resource.itemPath! : resource.collectionPath;
  const options: Record<string, unknown> = { ...written };
  for (const k of GRAPHQL_ONLY) delete options[k];
  const twin = twinOf(resource, kind, declared.name, restKind === 'Post');
  if (twin) takeTwinGuards(options, declared.options, twin);
  const pipeline: OperationMetadata = {
    name: `_graphql_${fieldName}`,
    kind: restKind,
    method: METHOD[restKind]!,
    resource,
    shortName: resource.shortName,
    path,
    uriVariables: placeholders(path),
    isCollection: restKind === 'GetCollection',
    hidden: false,
    options,
    provider: await codeOf(options.provider, baseDir, `provider of ${fieldName}`),
    processor: await codeOf(options.processor, baseDir, `processor of ${fieldName}`),
  };
  const resolver = await codeOf(written.resolver, baseDir, `resolver of ${fieldName}`);
  const faceOf = resolver ? undefined : resource.operations.find((o) => o.kind === restKind && !o.hidden);
  if (faceOf) pipeline.faceOf = faceOf;
  // A custom query's resolver provides the data; a custom mutation's changes the item, which is then stored.
  if (resolver && (kind === 'Query' || kind === 'QueryCollection')) pipeline.provider = resolver;
  if (resolver && kind === 'Mutation') pipeline.processor = mutationProcessor(resolver);
  return {
    kind,
    ...(declared.name !== undefined ? { name: declared.name } : {}),
    fieldName,
    operation: pipeline,
    resolver,
    ...(args ? { args } : {}),
    ...(extraArgs ? { extraArgs } : {}),
    nested: written.nested === true,
    ...(twin ? { twin } : {}),
  };
}

type Persisting = { persist(item: unknown): Promise<unknown> };
const mutationProcessor =
  (resolver: CodeFunction): CodeFunction =>
  async (item: unknown, ctx: unknown) =>
    (ctx as Persisting).persist(await resolver(item, ctx));

const codeOf = (value: unknown, baseDir: string, what: string) =>
  typeof value === 'string' ? loadCode(value, baseDir, what) : Promise.resolve(undefined);

function argumentsOf(value: unknown): Record<string, GraphQlArgument> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const out: Record<string, GraphQlArgument> = {};
  for (const [name, spec] of Object.entries(value as Record<string, unknown>)) {
    const s = (typeof spec === 'object' && spec !== null ? spec : {}) as Record<string, unknown>;
    out[name] = {
      type: typeof s.type === 'string' ? s.type : 'String',
      ...(typeof s.description === 'string' ? { description: s.description } : {}),
    };
  }
  return out;
}
