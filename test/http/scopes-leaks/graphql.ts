/**
 * The leak test's GraphQL faces (test/http/scopes-leaks.test.ts), derived from the loaded API and the schema's
 * introspection: every collection query (its nodes, `totalCount`, its pages), every item query and `node` for every
 * row (null, answered as an unknown IRI, outside the scope), each with the scalar fields of the type and of every
 * to-one relation field (a related item outside the reader's scope resolves to null); then the update, delete and
 * create mutations outside the caller's scopes (errors with status 404, 403; nothing stored).
 */
import type { GraphQlOperationMetadata } from '../../../server/metadata/types.js';
import { request } from '../harness.js';
import { changeOf, copyOf, same, type Face } from './rest.js';
import type { Row } from './world.js';

interface TypeRef {
  kind: string;
  name: string | null;
  ofType: TypeRef | null;
}
interface Field {
  name: string;
  args: { name: string; type: TypeRef }[];
  type: TypeRef;
}
interface Schema {
  queries: Map<string, Field>;
  mutations: Map<string, Field>;
  types: Map<string, Field[]>;
}

const REF = 'kind name ofType { kind name ofType { kind name ofType { kind name } } }';
const INTROSPECTION = `{ __schema {
  queryType { fields { name args { name type { ${REF} } } type { ${REF} } } }
  mutationType { fields { name args { name type { ${REF} } } type { ${REF} } } }
  types { name fields { name args { name type { ${REF} } } type { ${REF} } } } } }`;

interface Answer {
  text: string;
  data?: Record<string, any>;
  errors?: { extensions?: { status?: number } }[];
}

async function ask(face: Face, query: string, variables: Record<string, unknown> = {}): Promise<Answer> {
  const token = face.sight.caller.token;
  const r = await request(face.url, 'POST', '/graphql', {
    headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  return { text: r.text, ...(r.json as object) };
}

const schemas = new Map<string, Promise<Schema>>();

/** The introspected schema of the server (asked once per server). */
function schemaOf(face: Face): Promise<Schema> {
  let schema = schemas.get(face.url);
  if (!schema) {
    schema = ask(face, INTROSPECTION).then(({ data }) => {
      const s = data!.__schema;
      const byName = (fields: Field[] | undefined) => new Map((fields ?? []).map((f) => [f.name, f]));
      return {
        queries: byName(s.queryType.fields),
        mutations: byName(s.mutationType?.fields),
        types: new Map((s.types as { name: string; fields: Field[] | null }[]).map((t) => [t.name, t.fields ?? []])),
      };
    });
    schemas.set(face.url, schema);
  }
  return schema;
}

const named = (t: TypeRef): TypeRef => (t.ofType ? named(t.ofType) : t);
/** A type reference as a query writes it: `NoteInput!`, `[ID]`. */
function written(t: TypeRef): string {
  if (t.kind === 'NON_NULL') return `${written(t.ofType!)}!`;
  return t.kind === 'LIST' ? `[${written(t.ofType!)}]` : t.name!;
}
const scalar = (f: Field): boolean => ['SCALAR', 'ENUM'].includes(named(f.type).kind) && f.args.length === 0;

/** The scalar fields of a type, and `field { id, scalars }` for each to-one relation field. */
function selection(schema: Schema, type: string): string {
  const parts: string[] = [];
  for (const f of schema.types.get(type) ?? []) {
    if (scalar(f)) parts.push(f.name);
    else if (named(f.type).kind === 'OBJECT' && f.type.kind !== 'LIST' && f.args.length === 0) {
      const inner = (schema.types.get(named(f.type).name!) ?? []).filter(scalar).map((g) => g.name);
      if (inner.includes('id')) parts.push(`${f.name} { ${inner.join(' ')} }`);
    }
  }
  return parts.join(' ');
}

/** The root queries without a resolver of their own, not nested. */
const plain = (face: Face, kind: string): GraphQlOperationMetadata[] =>
  face.sight.leak.api.resources.flatMap((r) =>
    r.graphQlOperations.filter((g) => g.kind === kind && !g.nested && !g.resolver && !g.operation.provider),
  );

export async function graphQlFaces(face: Face): Promise<void> {
  if (!face.sight.leak.api.settings.graphql.enabled) return;
  const schema = await schemaOf(face);
  for (const g of plain(face, 'QueryCollection')) await collection(face, schema, g);
  for (const g of plain(face, 'Query')) if (g.name === undefined) await items(face, schema, g);
}

async function collection(face: Face, schema: Schema, g: GraphQlOperationMetadata): Promise<void> {
  const { sight } = face;
  const field = schema.queries.get(g.fieldName);
  if (!field) return;
  const fields = schema.types.get(named(field.type).name!) ?? [];
  const visible = (await sight.visible(g.operation)).map((r) => r.iri);
  const where = `GraphQL ${g.fieldName}`;
  const shape = [CURSOR, PAGE].find((s) => fields.some((f) => f.name === s.members)) ?? LIST;
  const select = selection(schema, shape.nodeType(schema, fields, named(field.type).name!));
  const iris: string[] = [];
  let position: unknown = shape.first;
  for (let pages = 0; pages <= visible.length + 1; pages++) {
    const answer = await ask(face, shape.query(g.fieldName, select), { position });
    sight.check(answer.text, where);
    const page = answer.data?.[g.fieldName];
    if (!page) return sight.expect(false, () => `${where} answers ${answer.text.slice(0, 200)}`);
    iris.push(...shape.nodes(page).map((n) => n.id));
    const total = shape.total(page);
    sight.expect(
      total === undefined || total === visible.length,
      () => `${where}: totalCount ${total}, not ${visible.length}`,
    );
    position = shape.next(page, position);
    if (position === undefined) break;
  }
  sight.expect(same(iris, visible), () => `${where} lists ${iris.join(' ')}, not ${visible.join(' ')}`);
  if (shape === CURSOR) await fromTheEnd(face, g.fieldName, select, visible);
}

/** `last: 1`: the last node in scope, the count of a read of its own (the offset is counted from the end). */
async function fromTheEnd(face: Face, field: string, select: string, visible: string[]): Promise<void> {
  const { sight } = face;
  const answer = await ask(face, `{ ${field}(last: 1) { totalCount edges { node { ${select} } } } }`);
  const where = `GraphQL ${field}(last: 1)`;
  sight.check(answer.text, where);
  const page = answer.data?.[field];
  if (!page) return sight.expect(false, () => `${where} answers ${answer.text.slice(0, 200)}`);
  sight.expect(
    page.totalCount === visible.length,
    () => `${where}: totalCount ${page.totalCount}, not ${visible.length}`,
  );
  // The offset from the end is counted in scope: one node when the caller has any, one of theirs.
  const nodes = CURSOR.nodes(page).map((n) => n.id);
  sight.expect(
    nodes.length === Math.min(1, visible.length) && nodes.every((iri) => visible.includes(iri)),
    () => `${where} lists ${nodes.join(' ')}`,
  );
}

/** How a collection query pages: a cursor connection, a page connection, a plain list. */
interface Shape {
  /** The field of the connection that holds its members. */
  members?: string;
  first: unknown;
  query(field: string, select: string): string;
  nodeType(schema: Schema, fields: Field[], type: string): string;
  nodes(page: any): { id: string }[];
  total(page: any): number | undefined;
  /** The next page's position, undefined after the last. */
  next(page: any, position: unknown): unknown;
}

const typeOf = (fields: Field[], name: string): string => named(fields.find((f) => f.name === name)!.type).name!;

const CURSOR: Shape = {
  members: 'edges',
  first: null,
  query: (field, select) =>
    `query($position: String) { ${field}(after: $position) { totalCount edges { node { ${select} } } pageInfo { hasNextPage endCursor } } }`,
  nodeType: (schema, fields) => typeOf(schema.types.get(typeOf(fields, 'edges')) ?? [], 'node'),
  nodes: (page) => page.edges.map((e: { node: { id: string } }) => e.node),
  total: (page) => page.totalCount,
  next: (page) => (page.pageInfo.hasNextPage ? page.pageInfo.endCursor : undefined),
};

const PAGE: Shape = {
  members: 'collection',
  first: 1,
  query: (field, select) =>
    `query($position: Int) { ${field}(page: $position) { collection { ${select} } paginationInfo { totalCount hasNextPage } } }`,
  nodeType: (_schema, fields) => typeOf(fields, 'collection'),
  nodes: (page) => page.collection,
  total: (page) => page.paginationInfo.totalCount,
  next: (page, position) => (page.paginationInfo.hasNextPage ? (position as number) + 1 : undefined),
};

const LIST: Shape = {
  first: null,
  query: (field, select) => `{ ${field} { ${select} } }`,
  nodeType: (_schema, _fields, type) => type,
  nodes: (page) => page,
  total: () => undefined,
  next: () => undefined,
};

/** The item query and `node` for every row: null outside the scope, answered exactly as an unknown IRI. */
async function items(face: Face, schema: Schema, g: GraphQlOperationMetadata): Promise<void> {
  const { sight } = face;
  const field = schema.queries.get(g.fieldName);
  if (!field) return;
  const type = named(field.type).name!;
  const select = selection(schema, type);
  const queries: [string, string][] = [[g.fieldName, `query($id: ID!) { ${g.fieldName}(id: $id) { ${select} } }`]];
  if (schema.queries.has('node'))
    queries.push(['node', `query($id: ID!) { node(id: $id) { id ... on ${type} { ${select} } } }`]);
  const unknownIri = g.operation.resource.itemPath!.replace(
    /\{[^}]+\}/,
    String(sight.world.unknownId(g.operation.resource)),
  );
  for (const [name, query] of queries) {
    const unknown = await ask(face, query, { id: unknownIri });
    for (const row of sight.world.of(g.operation.resource)) {
      const answer = await ask(face, query, { id: row.iri });
      const where = `GraphQL ${name}(id: "${row.iri}")`;
      sight.check(answer.text, where, [row.iri]);
      if (await sight.holds(g.operation, row, 'read'))
        sight.expect(
          answer.data?.[name]?.id === row.iri,
          () => `${where} answers ${answer.text.slice(0, 200)}, in scope`,
        );
      else
        sight.expect(
          answer.text === unknown.text.split(unknownIri).join(row.iri),
          () => `${where} answers ${answer.text.slice(0, 200)}, not as an unknown IRI: ${unknown.text.slice(0, 200)}`,
        );
    }
  }
}

/** Update, delete and create mutations outside the caller's scopes: an error with status 404 or 403. */
export async function graphQlWrites(face: Face): Promise<void> {
  if (!face.sight.leak.api.settings.graphql.enabled) return;
  const schema = await schemaOf(face);
  const mutations = face.sight.leak.api.resources.flatMap((r) =>
    r.graphQlOperations.filter((g) => !g.resolver && ['update', 'delete', 'create'].includes(g.name ?? '')),
  );
  for (const g of mutations) {
    const field = schema.mutations.get(g.fieldName);
    const input = field?.args.find((a) => a.name === 'input');
    if (!input) continue;
    const query = `mutation($input: ${written(input.type)}) { ${g.fieldName}(input: $input) { clientMutationId } }`;
    for (const row of face.sight.world.of(g.operation.resource)) await mutate(face, g, query, row);
  }
}

async function mutate(face: Face, g: GraphQlOperationMetadata, query: string, row: Row): Promise<void> {
  const { sight } = face;
  const op = g.operation;
  let expected: number | undefined = 0;
  let input: Record<string, unknown>;
  if (g.name === 'create') {
    if (!(await sight.refusesCopy(op, row))) return;
    input = copyOf(row);
  } else {
    expected = await sight.refusal(op, row);
    if (expected === undefined) return;
    input = { id: row.iri, ...(g.name === 'update' ? changeOf(row) : {}) };
  }
  const answer = await ask(face, query, { input });
  const where = `GraphQL ${g.fieldName} of ${row.iri}`;
  sight.check(
    answer.text,
    where,
    Object.values(input).filter((v): v is string => typeof v === 'string'),
  );
  const status = answer.errors?.[0]?.extensions?.status;
  sight.expect(
    expected === 0 ? (answer.errors?.length ?? 0) > 0 : status === expected,
    () => `${where} answers ${answer.text.slice(0, 200)}, not ${expected || 'an error'}`,
  );
}
