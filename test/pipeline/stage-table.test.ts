/**
 * The table of stages each operation runs (server/pipeline/chain.ts, `stagesOf`): a stage left out for an
 * operation is one that would have done nothing. For every operation of every fixture and example that loads,
 * each stage left out is run on requests of several shapes (no data, an item, a page, query criteria, a body
 * waiting) and must return without changing the request's state, reading its body, touching the store or
 * throwing; so no stage's rules are skipped where they could apply.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { PIPELINE, stagesOf } from '../../server/pipeline/chain.js';
import type { OperationState } from '../../server/pipeline/state.js';
import type { ApiMetadata, OperationMetadata } from '../../server/metadata/types.js';
import { loadApi } from '../../server/load-api.js';
import { ANONYMOUS } from '../../server/security/access.js';
import { apiFiles, loadableApis } from '../support/api-files.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The states a skipped stage is tried on: what reaches it differs by request, not by operation. */
function shapes(api: ApiMetadata, op: OperationMetadata): Record<string, unknown>[] {
  const item = { id: 1, name: 'x' };
  return [
    { data: null, previousData: null },
    { data: item, previousData: { ...item } },
    {
      data: { items: [item] },
      page: { items: [item], request: { enabled: true, partial: false, page: 1, itemsPerPage: 30 }, total: 1 },
    },
    {
      criteria: { page: '2', unknown: 'x' },
      request: {
        method: op.method,
        url: '/x?page=2&unknown=x',
        headers: {},
        query: { page: '2', unknown: 'x' },
        body: item,
        attributes: new Map(),
      },
    },
    {
      contentType: 'application/ld+json',
      request: { method: op.method, url: '/x', headers: {}, query: {}, body: item, attributes: new Map() },
      changes: undefined,
    },
  ].map((shape) => ({ api, operation: op, ...shape }));
}

/** A state that fails the test on any write, body read or store access. */
function watched(fields: Record<string, unknown>): { state: OperationState; touched: string[] } {
  const touched: string[] = [];
  const base: Record<string, unknown> = {
    criteria: {},
    uriVariables: { id: '1' },
    request: { method: 'GET', url: '/x', headers: {}, query: {}, body: undefined, attributes: new Map() },
    output: { name: 'jsonld', mediaType: 'application/ld+json' },
    path: '/x',
    origin: 'http://localhost',
    collectionIri: '/x',
    created: false,
    principal: ANONYMOUS,
    contentType: undefined,
    representation: { kind: 'document' },
    ...fields,
  };
  const state = new Proxy(base, {
    get(target, key) {
      if (
        key === 'readBody' ||
        key === 'readJsonBody' ||
        key === 'storeCollection' ||
        key === 'collectionOf' ||
        key === 'transaction'
      )
        touched.push(`read ${String(key)}`);
      return target[key as string];
    },
    set(_target, key) {
      touched.push(`set ${String(key)}`);
      return true;
    },
    deleteProperty(_target, key) {
      touched.push(`delete ${String(key)}`);
      return true;
    },
  }) as unknown as OperationState;
  return { state, touched };
}

const files = [...apiFiles(join(ROOT, 'test/fixtures')), ...apiFiles(join(ROOT, 'examples'))].sort();

describe('pipeline: the stages each operation runs', () => {
  it('the bench page (GET /books) runs only the stages that act on it', async () => {
    const api = await loadApi(join(ROOT, 'test/fixtures/bench/pagination.api'));
    const books = api.resources.find((r) => r.shortName === 'Book')!;
    const list = books.operations.find((o) => o.kind === 'GetCollection')!;
    expect(stagesOf(list, api.settings).map(({ name }) => name)).to.deep.equal([
      'parameters',
      'read',
      'publish',
      'serialize',
    ]);
    const post = books.operations.find((o) => o.kind === 'Post')!;
    expect(stagesOf(post, api.settings).map(({ name }) => name)).to.deep.equal([
      'deserialize',
      'validate',
      'write',
      'publish',
      'serialize',
    ]);
  });

  it('a stage left out of an operation is a no-op for it, on every operation of every fixture and example', async () => {
    let loaded = 0;
    let tried = 0;
    for await (const { file, api } of loadableApis(files)) {
      loaded++;
      for (const op of api.resources.flatMap((r) => r.operations)) {
        const kept = new Set(stagesOf(op, api.settings).map(({ name }) => name));
        for (const { name, run: stage } of PIPELINE) {
          if (kept.has(name)) continue;
          for (const shape of shapes(api, op)) {
            const { state, touched } = watched(shape);
            const where = `${file.slice(ROOT.length)}: ${op.method} ${op.path} (${op.kind}), stage ${name}`;
            await Promise.resolve(stage(state)).catch((e: unknown) => touched.push(`threw ${String(e)}`));
            expect(touched, where).to.deep.equal([]);
            tried++;
          }
        }
      }
    }
    expect(loaded, 'fixtures loaded').to.be.greaterThan(50);
    expect(tried, 'skipped stages tried').to.be.greaterThan(1000);
  });
});
