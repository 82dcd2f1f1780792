/**
 * Helpers of the pagination suite (test/http/pagination-*.test.ts): fixtures, seeding,
 * link walking, and an in-process service whose store counts the calls each collection receives
 * (to prove that partial and cursor pagination run no count query).
 */
import { expect } from 'chai';
import { pino } from 'pino';
import { startService } from '../../server/serve.js';
import { openSqliteStore } from '../../server/store/sqlite/store.js';
import type { Collection, CollectionSpec, Store } from '../../server/store/types.js';
import { fromRoot } from '../support/paths.js';
import { errorDoc, PROBLEM_JSON, request, type HttpResponse } from './harness.js';

/** Path of a fixture of this suite (test/fixtures/pagination/). */
export const pfixture = (name: string): string => fromRoot(`test/fixtures/pagination/${name}`);

export type Doc = any;

/** POSTs the items one after the other (ids 1, 2, 3… in that order); throws on any answer but 201. */
export async function seed(base: string, path: string, items: Record<string, unknown>[]): Promise<Doc[]> {
  const created: Doc[] = [];
  for (const item of items) {
    const r = await request(base, 'POST', path, { body: item });
    if (r.status !== 201) throw new Error(`POST ${path} ${JSON.stringify(item)} answered ${r.status}: ${r.text}`);
    created.push(r.json);
  }
  return created;
}

/** POSTs many items with some requests in flight at once (ids then follow no particular order). */
export async function seedConcurrently(
  base: string,
  path: string,
  items: Record<string, unknown>[],
  concurrency = 32,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++];
      const r = await request(base, 'POST', path, { body: item });
      if (r.status !== 201) throw new Error(`POST ${path} ${JSON.stringify(item)} answered ${r.status}: ${r.text}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/** `count` items named `${prefix}1` … */
export const named = (count: number, prefix: string): Record<string, unknown>[] =>
  Array.from({ length: count }, (_, i) => ({ name: `${prefix}${i + 1}` }));

/** The ids of a collection document's members (either prefix form). */
export const memberIds = (doc: Doc): number[] => (doc.member ?? doc['hydra:member']).map((m: { id: number }) => m.id);

/** A Dummy member as API Platform shows it: @id, @type, then the properties. */
export const dummy = (id: number, path = '/dummies', type = 'Dummy', prefix = 'Dummy #'): Record<string, unknown> => ({
  '@id': `${path}/${id}`,
  '@type': type,
  id,
  name: `${prefix}${id}`,
});

export const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/**
 * The collection document without `search`: the search template is not part of
 * pagination, so documents are compared without it.
 */
export function withoutSearch(doc: Doc): Doc {
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return doc;
  const { search: _s, 'hydra:search': _h, ...rest } = doc as Record<string, unknown>;
  void _s;
  void _h;
  return rest;
}

/** GET path, expect 200 with JSON, return the parsed document. */
export async function getDoc(base: string, path: string, headers: Record<string, string> = {}): Promise<Doc> {
  const r = await request(base, 'GET', path, { headers });
  expect(r.status, `GET ${path}: ${r.text.slice(0, 500)}`).to.equal(200);
  expect(r.json, `GET ${path}: body is not JSON`).to.not.equal(undefined);
  return r.json;
}

/** Expects a pagination 400 with this detail (Hydra error document, problem+json). */
export function expectPaginationError(r: HttpResponse, detail: string, path: string): void {
  expect(r.status, `${path}: ${r.text.slice(0, 300)}`).to.equal(400);
  expect(r.headers.get('content-type'), path).to.equal(PROBLEM_JSON);
  const body = { ...r.json };
  delete body.trace;
  expect(body, path).to.deep.equal(errorDoc(400, detail));
}

export interface WalkedPage {
  /** The link that was followed (the start path for the first page). */
  path: string;
  doc: Doc;
  ids: number[];
}

/**
 * Follows `rel` (`next` or `previous`) links from `start` until a page has none; throws after
 * `max` pages (a loop). Links are absolute paths.
 */
export async function walk(base: string, start: string, rel: 'next' | 'previous', max = 500): Promise<WalkedPage[]> {
  const pages: WalkedPage[] = [];
  let path: string | undefined = start;
  while (path !== undefined) {
    if (pages.length >= max)
      throw new Error(`more than ${max} pages following ${rel} from ${start}: a loop? last ${path}`);
    const doc = await getDoc(base, path);
    pages.push({ path, doc, ids: memberIds(doc) });
    const view = doc.view ?? doc['hydra:view'];
    const link: unknown = view?.[rel] ?? view?.[`hydra:${rel}`];
    if (link !== undefined && typeof link !== 'string')
      throw new Error(`${rel} of ${path} is not a string: ${JSON.stringify(link)}`);
    path = link as string | undefined;
  }
  return pages;
}

/** Ids that occur more than once. */
export const duplicates = (ids: number[]): number[] => [...new Set(ids.filter((id, i) => ids.indexOf(id) !== i))];

// ---------------------------------------------------------------------------------------------
// In-process service with a spying store

/** Calls received by one collection, by method name (`count`, `find`, `exists`, `stream`…). */
export type CallCounts = Record<string, number>;

export interface SpiedService {
  url: string;
  /** Calls per resource short name; a fresh object per collection, updated live. */
  calls: Map<string, CallCounts>;
  /** Number of counting reads the resource's collection has received so far: `count`, and `findPage` (a page with its total). */
  counts(resource: string): number;
  stop(): Promise<void>;
}

/** Wraps a collection so that every method call is counted by name, then forwarded unchanged. */
function spyCollection(inner: Collection, calls: CallCounts): Collection {
  return new Proxy(inner, {
    get(target, prop, _receiver) {
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function' || typeof prop !== 'string') return value;
      return (...args: unknown[]): unknown => {
        calls[prop] = (calls[prop] ?? 0) + 1;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

/**
 * `startService` of server/serve.ts on an in-memory SQLite store whose collections count the
 * calls they receive.
 */
export async function startSpiedService(file: string): Promise<SpiedService> {
  const inner = await openSqliteStore({ memory: true });
  const calls = new Map<string, CallCounts>();
  const store: Store = {
    async collection(spec: CollectionSpec): Promise<Collection> {
      const counts: CallCounts = calls.get(spec.name) ?? {};
      calls.set(spec.name, counts);
      return spyCollection(await inner.collection(spec), counts);
    },
    inspect: (spec) => inner.inspect(spec),
    fill: (spec, field, value) => inner.fill(spec, field, value),
    close: () => inner.close(),
  };
  const running = await startService({
    file,
    port: 0,
    host: '127.0.0.1',
    storage: { kind: 'memory' },
    logger: pino({ level: 'silent' }),
    store,
  });
  return {
    url: running.url,
    calls,
    counts: (resource: string): number => (calls.get(resource)?.count ?? 0) + (calls.get(resource)?.findPage ?? 0),
    stop: () => running.close(),
  };
}
