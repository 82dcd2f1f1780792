/**
 * No N+1 (server/graphql/request-context.ts, prefetch.ts): the related items of a page are read from the store in a number
 * of queries bounded by the relation fields and levels asked for, whatever the page size. The runtime runs in the
 * process with every store collection counting its reads, and each query runs compiled as the transport runs it.
 * A guarded related resource (its Query has `security`) still runs its pipeline for each related item (each one is
 * denied or shown on its own), its reads batched all the same. On the MongoDB store with APIDSL_TEST_STORE=mongodb.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'graphql';
import { pino } from 'pino';
import type { ApiMetadata, ResourceMetadata } from '../../server/metadata/types.js';
import { executeOperation } from '../../server/pipeline/execute.js';
import { startRuntime } from '../../server/pipeline/open-runtime.js';
import type { Runtime } from '../../server/pipeline/runtime.js';
import { executeCompiled } from '../../server/graphql/compiled.js';
import { graphQlContext } from '../../server/graphql/request-context.js';
import { graphQlSchema } from '../../server/graphql/schema.js';
import { ANONYMOUS, type Principal } from '../../server/security/access.js';
import { loadApi } from '../../server/load-api.js';
import { openStore } from '../../server/storage.js';
import type { Collection, Store } from '../../server/store/types.js';
import { dropCreatedDatabases, freshDatabaseUri } from '../support/mongodb.js';
import { operationRequest } from '../support/operation-request.js';

const API = `api "Batching" { version: "1" }
config { graphql { enabled: true } }
resource Country {
  properties { id: int { identifier: true }, name: string }
  operations { Post, Get, GetCollection }
}
resource Author {
  properties { id: int { identifier: true }, name: string, country: Country }
  operations { Post, Get, GetCollection }
}
// Its Query is guarded: no plain read, a pipeline run per related item.
resource Editor {
  properties { id: int { identifier: true }, name: string }
  operations { Post, Get, GetCollection }
  graphql { Query { security: "is_granted('ROLE_USER')" }, QueryCollection }
}
resource Book {
  properties {
    id: int { identifier: true }
    title: string
    author: Author
    coauthors: Author[]
    editor: Editor
  }
  operations { Post, Get, GetCollection }
}
`;

const READS = ['find', 'findPage', 'findRendered', 'get', 'getMany', 'exists', 'count', 'stream'] as const;

const USER: Principal = { user: { identifier: 'ursula', roles: ['ROLE_USER'], claims: {} }, roles: ['ROLE_USER'] };

describe('GraphQL: no N+1, store reads bounded by the relations asked for, not the page size', function () {
  let dir: string;
  let api: ApiMetadata;
  let store: Store;
  let runtime: Runtime;
  /** Store reads per resource since the last reset. */
  let reads: Record<string, number> = {};

  /** The runtime, each collection counting its reads. */
  const counting = (inner: Runtime): Runtime => {
    const wrapped = new Map<ResourceMetadata, Collection>();
    return {
      ...inner,
      collectionOf(resource) {
        let collection = wrapped.get(resource);
        if (!collection) {
          const target = inner.collectionOf(resource);
          collection = new Proxy(target, {
            get(t, name) {
              const value: unknown = Reflect.get(t, name, t);
              if (typeof value !== 'function') return value;
              const fn = (value as (...a: unknown[]) => unknown).bind(t);
              if (!(READS as readonly PropertyKey[]).includes(name)) return fn;
              return (...args: unknown[]) => {
                reads[resource.shortName] = (reads[resource.shortName] ?? 0) + 1;
                return fn(...args);
              };
            },
          });
          wrapped.set(resource, collection);
        }
        return collection;
      },
    };
  };

  const post = async (path: string, body: Record<string, unknown>): Promise<void> => {
    const resource = api.resources.find((r) => r.collectionPath === path)!;
    const op = resource.operations.find((o) => o.method === 'POST')!;
    const r = await executeOperation(
      runtime,
      op,
      operationRequest({
        method: 'POST',
        path,
        headers: { accept: 'application/ld+json', 'content-type': 'application/ld+json' },
        body: JSON.stringify(body),
      }),
    );
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
  };

  /** Runs a query as `principal`, counting the store reads it makes. */
  const run = async (query: string, principal: Principal = ANONYMOUS) => {
    reads = {};
    const result = await executeCompiled({
      schema: graphQlSchema(api),
      document: parse(query),
      contextValue: graphQlContext({
        runtime: counting(runtime),
        principal,
        origin: 'http://batching.test',
        headers: {},
      }),
    });
    return { result, reads: { ...reads } };
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'apidsl-graphql-batching-'));
    writeFileSync(join(dir, 'batching.api'), API);
    api = await loadApi(join(dir, 'batching.api'));
    store = await openStore(
      process.env.APIDSL_TEST_STORE === 'mongodb'
        ? { kind: 'mongodb', uri: await freshDatabaseUri('gqlbatch') }
        : { kind: 'memory' },
    );
    runtime = await startRuntime(api, store, { logger: pino({ level: 'silent' }) });
    for (let i = 1; i <= 3; i++) await post('/countries', { name: `country ${i}` });
    for (let i = 1; i <= 40; i++) await post('/authors', { name: `author ${i}`, country: `/countries/${(i % 3) + 1}` });
    for (let i = 1; i <= 40; i++) await post('/editors', { name: `editor ${i}` });
    for (let i = 1; i <= 30; i++)
      await post('/books', {
        title: `book ${i}`,
        author: `/authors/${i}`,
        coauthors: [`/authors/${i + 1}`, `/authors/${i + 2}`],
        editor: `/editors/${i}`,
      });
  });
  after(async () => {
    await runtime?.bus.close();
    await store?.close();
    if (process.env.APIDSL_TEST_STORE === 'mongodb') await dropCreatedDatabases();
    rmSync(dir, { recursive: true, force: true });
  });

  const RELATIONS = (n: number) =>
    `{ books(first: ${n}) { edges { node { title author { name } coauthors { edges { node { name } } } } } } }`;

  it('reads a page’s to-one and to-many relations in a bounded number of queries: 30 items as 3', async () => {
    const small = await run(RELATIONS(3));
    const large = await run(RELATIONS(30));
    expect(small.result.errors).to.equal(undefined);
    expect(large.result.errors).to.equal(undefined);
    const books = (large.result.data as any).books.edges.map((e: any) => e.node);
    expect(books).to.have.length(30);
    expect(books[29]).to.deep.equal({
      title: 'book 30',
      author: { name: 'author 30' },
      coauthors: { edges: [{ node: { name: 'author 31' } }, { node: { name: 'author 32' } }] },
    });
    // One read of the page, one per relation field (author, coauthors).
    expect(large.reads).to.deep.equal(small.reads);
    expect(large.reads.Book).to.be.at.most(2);
    expect(large.reads.Author).to.be.at.most(2);
  });

  it('batches a second level too: the relations of related items, one read per field and level', async () => {
    const query = (n: number) =>
      `{ books(first: ${n}) { edges { node { author { name country { name } }
           coauthors { edges { node { name country { name } } } } } } } }`;
    const small = await run(query(3));
    const large = await run(query(30));
    expect(large.result.errors).to.equal(undefined);
    const last = (large.result.data as any).books.edges[29].node;
    expect(last.author).to.deep.equal({ name: 'author 30', country: { name: 'country 1' } });
    expect(last.coauthors.edges[1].node).to.deep.equal({ name: 'author 32', country: { name: 'country 3' } });
    expect(large.reads).to.deep.equal(small.reads);
    // author.country and coauthors.country: at most one read each.
    expect(large.reads.Country).to.be.at.most(2);
  });

  it('runs a guarded related resource’s pipeline for each related item, its reads still batched', async () => {
    const query = (n: number) => `{ books(first: ${n}) { edges { node { title editor { name } } } } }`;
    // Anonymous: each related editor is denied on its own (one error per item), the books still listed.
    const denied = await run(query(30));
    expect(denied.result.errors?.map((e) => e.extensions?.status)).to.deep.equal(Array(30).fill(401));
    expect(denied.result.errors?.map((e) => e.path?.join('.'))).to.include('books.edges.29.node.editor');
    const deniedBooks = (denied.result.data as any).books.edges.map((e: any) => e.node);
    expect(deniedBooks[0]).to.deep.equal({ title: 'book 1', editor: null });

    const small = await run(query(3), USER);
    const large = await run(query(30), USER);
    expect(large.result.errors).to.equal(undefined);
    expect((large.result.data as any).books.edges[29].node.editor).to.deep.equal({ name: 'editor 30' });
    expect(large.reads).to.deep.equal(small.reads);
    expect(large.reads.Editor).to.be.at.most(2);
  });
});
