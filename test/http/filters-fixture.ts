/**
 * The shared fixture of the filter and QUERY suites: test/fixtures/filters/filters.api served
 * and seeded from seed.json (10 books, their authors), and a helper reading member ids.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { fromRoot } from '../support/paths.js';
import { get, request, useServer, type RunningServer } from './harness.js';

const SEED = JSON.parse(readFileSync(fromRoot('test/fixtures/filters/seed.json'), 'utf8')) as {
  authors: object[];
  books: object[];
};

/** Every book id of the seed, in identifier order. */
export const ALL = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

/** Posts the seed's authors and books to the service at `base`. */
async function seed(base: string): Promise<void> {
  for (const [path, items] of [
    ['/authors', SEED.authors],
    ['/books', SEED.books],
  ] as const) {
    for (const item of items) {
      const r = await request(base, 'POST', path, { body: item });
      if (r.status !== 201) throw new Error(`POST ${path} answered ${r.status}: ${r.text}`);
    }
  }
}

/** The filters fixture served and seeded for the enclosing suite (started before its tests, stopped after). */
export function useSeeded(): RunningServer {
  const server = useServer(fromRoot('test/fixtures/filters/filters.api'));
  before(() => seed(server.url));
  return server;
}

export /** The ids of the members a GET answers (in the collection's order); fails on anything but 200. */
async function ids(server: RunningServer, path: string): Promise<number[]> {
  const r = await get(server.url, path);
  expect(r.status, `${path}: ${r.text}`).to.equal(200);
  return r.json.member.map((m: { id: number }) => m.id);
}
