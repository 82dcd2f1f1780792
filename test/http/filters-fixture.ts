/**
 * The shared fixture of the filter and QUERY suites: test/fixtures/filters/filters.api served
 * and seeded from seed.json (10 books, their authors), and a helper reading member ids.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { fromRoot } from '../support/paths.js';
import { get, request, startServer, type RunningServer } from './harness.js';

const SEED = JSON.parse(readFileSync(fromRoot('test/fixtures/filters/seed.json'), 'utf8')) as {
  authors: object[];
  books: object[];
};

/** Every book id of the seed, in identifier order. */
export const ALL = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

export async function seeded(): Promise<RunningServer> {
  const server = await startServer(fromRoot('test/fixtures/filters/filters.api'));
  for (const [path, items] of [
    ['/authors', SEED.authors],
    ['/books', SEED.books],
  ] as const) {
    for (const item of items) {
      const r = await request(server.url, 'POST', path, { body: item });
      if (r.status !== 201) throw new Error(`POST ${path} answered ${r.status}: ${r.text}`);
    }
  }
  return server;
}

export /** The ids of the members a GET answers (in the collection's order); fails on anything but 200. */
async function ids(server: RunningServer, path: string): Promise<number[]> {
  const r = await get(server.url, path);
  expect(r.status, `${path}: ${r.text}`).to.equal(200);
  return r.json.member.map((m: { id: number }) => m.id);
}
