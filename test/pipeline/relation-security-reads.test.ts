/**
 * No N+1 when security reads through relations (server/security/relation-reads.ts): a GetCollection whose
 * property `security` reads `object.shop.owner` over a page of 30 orders, each in its own shop, reads the shops
 * in one store query, not 30; two levels (`object.order.shop.owner`) read one query per level. A streamed
 * (unpaginated) collection reads them a batch at a time. The runtime runs in the process with every store
 * collection counting its reads. On the MongoDB store with APIDSL_TEST_STORE=mongodb.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import type { ApiMetadata, ResourceMetadata } from '../../server/metadata/types.js';
import { executeOperation } from '../../server/pipeline/execute.js';
import { JsonText } from '../../server/pipeline/representation/json-text.js';
import { startRuntime } from '../../server/pipeline/open-runtime.js';
import type { Runtime } from '../../server/pipeline/runtime.js';
import type { Principal } from '../../server/security/access.js';
import { loadApi } from '../../server/load-api.js';
import { openStore } from '../../server/storage.js';
import type { Collection, Store } from '../../server/store/types.js';
import { dropCreatedDatabases, freshDatabaseUri } from '../support/mongodb.js';
import { operationRequest } from '../support/operation-request.js';

const API = `api "Relation reads" { version: "1" }
resource Shop {
  properties { id: int { identifier: true }, owner: string }
  operations { Get }
}
resource Order {
  paginationItemsPerPage: 30
  properties {
    id: int { identifier: true }
    reference: string
    shop: Shop
    total: int { security: "object.shop.owner == user.identifier" }
  }
  operations { Get, GetCollection, GetCollection all { uriTemplate: "/all_orders", paginationEnabled: false } }
}
resource OrderLine {
  paginationItemsPerPage: 30
  properties {
    id: int { identifier: true }
    order: Order
    note: string { security: "object.order.shop.owner == user.identifier" }
  }
  operations { Get, GetCollection }
}
`;

const READS = ['find', 'findPage', 'findRendered', 'get', 'getMany', 'exists', 'count', 'stream'] as const;

const owner = (name: string): Principal => ({
  user: { identifier: name, roles: ['ROLE_USER'], claims: {} },
  roles: ['ROLE_USER'],
});

describe('security reading through relations: one store read per relation and level, not per item', function () {
  this.timeout(60_000);
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
          collection = new Proxy(inner.collectionOf(resource), {
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

  /** GETs `path` as `principal`, counting the store reads; the members of the page. */
  const list = async (path: string, principal: Principal) => {
    const resource = api.resources.find((r) => r.operations.some((o) => o.path === path))!;
    const op = resource.operations.find((o) => o.method === 'GET' && o.isCollection && o.path === path)!;
    reads = {};
    const r = await executeOperation(counting(runtime), op, operationRequest({ path, principal }));
    expect(r.status, JSON.stringify(r.body)).to.equal(200);
    const body = await document(r.body);
    return { members: (body as { member: Record<string, unknown>[] }).member, reads: { ...reads } };
  };

  /** The document a result holds: a JSON value, JSON text, or a stream of JSON text (a streamed collection). */
  const document = async (body: unknown): Promise<unknown> => {
    if (body instanceof JsonText) return JSON.parse(body.text);
    if (typeof body !== 'object' || body === null || !(Symbol.asyncIterator in body)) return body;
    let text = '';
    for await (const chunk of body as AsyncIterable<string | Buffer>) text += String(chunk);
    return JSON.parse(text);
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'apidsl-relation-reads-'));
    writeFileSync(join(dir, 'api.api'), API);
    api = await loadApi(join(dir, 'api.api'));
    store = await openStore(
      process.env.APIDSL_TEST_STORE === 'mongodb'
        ? { kind: 'mongodb', uri: await freshDatabaseUri('relreads') }
        : { kind: 'memory' },
    );
    runtime = await startRuntime(api, store, { logger: pino({ level: 'silent' }) });
    const insert = (name: string, item: Record<string, unknown>) =>
      runtime.collectionOf(api.resource(name)!).insert(item);
    // 30 orders, each in its own shop; the odd shops are Alice's.
    for (let i = 1; i <= 30; i++) {
      await insert('Shop', { id: i, owner: i % 2 ? 'alice' : 'bob' });
      await insert('Order', { id: i, reference: `o${i}`, shop: `/shops/${i}`, total: i });
      await insert('OrderLine', { id: i, order: `/orders/${i}`, note: `n${i}` });
    }
  });
  after(async () => {
    await runtime?.bus.close();
    await store?.close();
    if (process.env.APIDSL_TEST_STORE === 'mongodb') await dropCreatedDatabases();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a page of 30 orders, 30 shops: the shops are read in one query, and each total judged right', async () => {
    const { members, reads } = await list('/orders', owner('alice'));
    expect(members).to.have.length(30);
    expect(reads.Shop, JSON.stringify(reads)).to.equal(1);
    for (const m of members) {
      const i = Number(String(m.reference).slice(1));
      if (i % 2) expect(m.total, `o${i}`).to.equal(i);
      else expect(m, `o${i}`).not.to.have.property('total');
    }
  });

  it('two levels: 30 lines read their orders in one query and the shops in one more', async () => {
    const { members, reads } = await list('/order_lines', owner('bob'));
    expect(members).to.have.length(30);
    expect(reads.Order, JSON.stringify(reads)).to.equal(1);
    expect(reads.Shop, JSON.stringify(reads)).to.equal(1);
    const shown = members.filter((m) => 'note' in m).map((m) => m.note);
    expect(shown).to.have.length(15);
    expect(shown).to.include('n2').and.not.include('n1');
  });

  it('a streamed collection (pagination off) reads the shops a batch at a time, not per item', async () => {
    const { members, reads } = await list('/all_orders', owner('bob'));
    expect(members).to.have.length(30);
    expect(reads.Shop, JSON.stringify(reads)).to.equal(1);
    expect(members.filter((m) => 'total' in m)).to.have.length(15);
  });
});
