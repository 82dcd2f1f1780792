/**
 * The schemas of every operation's requests and responses have shapes that OpenAPI viewers draw right, in every
 * example and every fixture that loads, in 3.2 and 3.1: walking every schema reachable from them (through `$ref`,
 * properties, items, `anyOf`/`oneOf` branches), none has `allOf` at its root (Swagger UI draws an `allOf` as "any"),
 * each root is typed (a `type`, a `$ref` to a typed schema, or branches that all are), and every IRI carries an
 * example path of this API (`/books/1`): without one, Swagger UI makes up `path/実例.html`.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect } from 'chai';
import type { ApiMetadata } from '../../server/metadata/types.js';
import { openApiDocument, SPEC_VERSIONS } from '../../server/openapi/index.js';
import { loadApi } from '../../server/load-api.js';
import { fromRoot, repoRoot } from '../support/paths.js';

type Schema = Record<string, unknown>;
type Doc = { paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, Schema> } };

function apiFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'broken' ? [] : apiFiles(path);
    return name.endsWith('.api') ? [path] : [];
  });
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace', 'query']);

/** Every operation of a document, with where it is: `GET /books`. */
function operations(doc: Doc): [string, Schema][] {
  const out: [string, Schema][] = [];
  for (const [path, item] of Object.entries(doc.paths))
    for (const [key, value] of Object.entries(item)) {
      if (key === 'additionalOperations')
        for (const [method, op] of Object.entries(value as Record<string, Schema>)) out.push([`${method} ${path}`, op]);
      else if (METHODS.has(key)) out.push([`${key.toUpperCase()} ${path}`, value as Schema]);
    }
  return out;
}

type Media = { schema?: Schema; itemSchema?: Schema };

/** The root schemas of an operation's request and responses (bodies and headers), each with where it is. */
function rootSchemas(where: string, op: Record<string, unknown>): [string, Schema][] {
  const out: [string, Schema][] = [];
  const media = (at: string, content: Record<string, Media> | undefined): void => {
    for (const [type, m] of Object.entries(content ?? {})) {
      if (m.schema) out.push([`${at} ${type}`, m.schema]);
      if (m.itemSchema) out.push([`${at} ${type} (items)`, m.itemSchema]);
    }
  };
  const body = op.requestBody as { content?: Record<string, Media> } | undefined;
  media(`${where} request`, body?.content);
  const responses = op.responses as Record<
    string,
    { content?: Record<string, Media>; headers?: Record<string, Media> }
  >;
  for (const [status, response] of Object.entries(responses)) {
    media(`${where} ${status}`, response.content);
    for (const [name, header] of Object.entries(response.headers ?? {}))
      if (header.schema) out.push([`${where} ${status} header ${name}`, header.schema]);
  }
  return out;
}

const resolve = (doc: Doc, schema: Schema): Schema => {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  const name = ref.replace('#/components/schemas/', '');
  expect(doc.components.schemas, ref).to.have.property(name);
  return resolve(doc, doc.components.schemas[name]);
};

/** The subschemas a viewer draws inside a schema. */
function children(schema: Schema): Schema[] {
  const out: Schema[] = [];
  for (const key of ['items', 'additionalProperties', 'not', 'contains'])
    if (typeof schema[key] === 'object') out.push(schema[key] as Schema);
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems'])
    if (Array.isArray(schema[key])) out.push(...(schema[key] as Schema[]));
  if (typeof schema.properties === 'object') out.push(...Object.values(schema.properties as Record<string, Schema>));
  return out;
}

/**
 * Every schema reachable from `root`, `$ref`s resolved, each once; with whether an example covers it: its own, or
 * that of the list or the alternatives holding it (a viewer shows that example whole).
 */
function reachable(doc: Doc, root: Schema): [Schema, boolean][] {
  const seen = new Map<Schema, boolean>();
  const walk = (s: Schema, inExample: boolean): void => {
    const schema = resolve(doc, s);
    if (seen.has(schema)) return;
    const exemplified = inExample || (Array.isArray(schema.examples) && schema.examples.length > 0);
    seen.set(schema, exemplified);
    const within = [schema.items, schema.anyOf, schema.oneOf].flat();
    for (const child of children(schema)) walk(child, exemplified && within.includes(child));
  };
  walk(root, false);
  return [...seen];
}

/** A type at the root: its own, its reference's, or that of every branch of its `anyOf`/`oneOf`. */
function typed(doc: Doc, s: Schema): boolean {
  const schema = resolve(doc, s);
  if (schema.type !== undefined) return true;
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  return branches !== undefined && branches.length > 0 && branches.every((b) => typed(doc, b));
}

interface Finding {
  allOf: string[];
  untyped: string[];
  iris: string[];
  schemas: number;
}

function inspect(doc: Doc): Finding {
  const found: Finding = { allOf: [], untyped: [], iris: [], schemas: 0 };
  for (const [where, op] of operations(doc)) {
    for (const [at, root] of rootSchemas(where, op)) {
      if (!typed(doc, root)) found.untyped.push(at);
      for (const [schema, exemplified] of reachable(doc, root)) {
        found.schemas++;
        if ('allOf' in schema) found.allOf.push(`${at}: ${JSON.stringify(schema).slice(0, 120)}`);
        const examples = (schema.examples ?? []) as unknown[];
        const paths = examples.every((e) => typeof e === 'string' && /^\/[^{}\s]*$/.test(e));
        if (schema.format === 'iri-reference' && (!exemplified || !paths))
          found.iris.push(`${at}: ${JSON.stringify(schema)}`);
      }
    }
  }
  return found;
}

describe('OpenAPI schemas: shapes viewers draw as objects, IRIs with examples', () => {
  const loaded = new Map<string, ApiMetadata>();
  const examples = apiFiles(fromRoot('examples'));
  before(async () => {
    for (const file of [...examples, ...apiFiles(fromRoot('test/fixtures'))]) {
      try {
        loaded.set(relative(repoRoot, file), await loadApi(file));
      } catch (e) {
        // A fixture that must be refused (missing custom code…) has no document; every example loads.
        if (examples.includes(file)) throw e;
      }
    }
  });

  for (const version of SPEC_VERSIONS) {
    it(`OpenAPI ${version}: no allOf, a typed root and IRI examples everywhere, in every example and fixture`, () => {
      expect(loaded.size).to.be.greaterThan(20);
      let schemas = 0;
      for (const [file, api] of loaded) {
        const found = inspect(openApiDocument(api, { specVersion: version }) as Doc);
        expect(found.allOf, `${file}: allOf at a schema's root`).to.deep.equal([]);
        expect(found.untyped, `${file}: a root schema without a type`).to.deep.equal([]);
        expect(found.iris, `${file}: an IRI without an example path`).to.deep.equal([]);
        schemas += found.schemas;
      }
      expect(schemas).to.be.greaterThan(1000);
    });
  }

  it('the walk sees what it must refuse (it is not vacuous)', () => {
    const doc = openApiDocument(loaded.get('examples/bookstore.api')!) as Doc;
    const collection = resolve(doc, rootSchemas('GET /books', doc.paths['/books'].get as Schema)[0][1]);
    expect(collection.type).to.equal('object');
    const broken = structuredClone(doc);
    const get = broken.paths['/books'].get as { responses: Record<string, { content: Record<string, Media> }> };
    const ld = get.responses['200'].content['application/ld+json'];
    ld.schema = { allOf: [ld.schema, { type: 'object' }] };
    const nameOf = (ref: unknown): string => String(ref).replace('#/components/schemas/', '');
    const member = (collection.properties as Record<string, { items: Schema }>).member.items.$ref;
    const book = broken.components.schemas[nameOf(member)].properties as Record<string, Schema>;
    delete book['@id'].examples;
    const found = inspect(broken);
    expect(found.allOf).to.have.length(1);
    expect(found.untyped).to.deep.equal(['GET /books 200 application/ld+json']);
    expect(found.iris.length).to.be.greaterThan(0);
  });
});
