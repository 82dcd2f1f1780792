/**
 * The cache correctness probe shared by the HTTP cache and workers suites: writers and readers run at once;
 * every read must show at least every write whose response was received before the read was sent.
 */
import { expect } from 'chai';
import { request } from './harness.js';

/** The time a probe is given (it runs writes and reads for seconds; nothing about speed is asserted). */
export const HAMMER_MS = 180_000;

const MERGE = { 'Content-Type': 'application/merge-patch+json' };

/**
 * Book 1 is patched to titles "v1", "v2"… one after another by `writers` loops while `readers` loops read
 * `/books/1`, `/books` and `/authors/1/books`; new books are added too, so `totalItems` must never fall behind.
 * Requires author 1 and book 1 (by author 1) to exist. Returns the number of reads checked.
 */
export async function hammer(base: string, options: { writes: number; readers: number }): Promise<number> {
  let acknowledged = 0; // highest title version whose PATCH answered
  let next = 0;
  let created = (await request(base, 'GET', '/books')).json.totalItems as number;
  let done = false;
  let reads = 0;
  const version = (title: string): number => Number(/^v(\d+)$/.exec(title)?.[1] ?? 0);

  const writer = async (): Promise<void> => {
    while (next < options.writes) {
      const n = ++next;
      // Versions are patched in order, so the stored title only grows.
      const patched = await request(base, 'PATCH', '/books/1', {
        body: JSON.stringify({ title: `v${n}` }),
        headers: MERGE,
      });
      expect(patched.status, patched.text).to.equal(200);
      acknowledged = Math.max(acknowledged, n);
      const added = await request(base, 'POST', '/books', { body: { title: `extra ${n}`, author: '/authors/1' } });
      expect(added.status, added.text).to.equal(201);
      created++;
    }
  };
  const reader = async (): Promise<void> => {
    while (!done) {
      const floor = acknowledged;
      const floorCount = created;
      const [item, page, sub] = await Promise.all([
        request(base, 'GET', '/books/1'),
        request(base, 'GET', '/books?page=1'),
        request(base, 'GET', '/authors/1/books'),
      ]);
      expect(version(item.json.title), `GET /books/1 after v${floor} was acknowledged`).to.be.at.least(floor);
      const first = page.json.member.find((m: { id: number }) => m.id === 1);
      expect(version(first.title), `GET /books after v${floor}`).to.be.at.least(floor);
      expect(page.json.totalItems, 'GET /books totalItems').to.be.at.least(floorCount);
      expect(sub.json.totalItems, 'GET /authors/1/books totalItems').to.be.at.least(floorCount);
      reads += 3;
    }
  };
  // One writer: versions are acknowledged in order.
  const readers = Array.from({ length: options.readers }, () => reader());
  await writer();
  done = true;
  await Promise.all(readers);
  return reads;
}
