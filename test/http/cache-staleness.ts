/**
 * The cache correctness probe shared by the HTTP cache and workers suites: writers and readers run at once;
 * every read must show at least every write whose response was received before the read was sent.
 */
import { expect } from 'chai';
import { request, type HttpResponse } from './harness.js';

/** The time a probe is given (it runs writes and reads for seconds; nothing about speed is asserted). */
export const HAMMER_MS = 180_000;

const MERGE = { 'Content-Type': 'application/merge-patch+json' };

/**
 * Book 1 is patched to titles "v1", "v2"… one after another by `writers` loops while `readers` loops read
 * `/books/1`, `/books` and `/authors/1/books`; new books are added too, so `totalItems` must never fall behind.
 * Requires author 1 and book 1 (by author 1) to exist. Returns the number of reads checked.
 *
 * With several base URLs (instances of one service), writes go to each in turn and every reader reads from
 * each in turn: a read on one must show the writes acknowledged by the others.
 */
export async function hammer(
  bases: string | readonly string[],
  options: {
    writes: number;
    readers: number;
    /**
     * Requests may fail at the connection (a process is killed, or not listening yet): such a write counts as
     * not acknowledged, such a read is not checked. Answers are still all checked.
     */
    connectionFaults?: boolean;
  },
): Promise<number> {
  const all = typeof bases === 'string' ? [bases] : bases;
  const base = all[0]!;
  const turn = (n: number): string => all[n % all.length]!;
  let acknowledged = 0; // highest title version whose PATCH answered
  let next = 0;
  let created = (await request(base, 'GET', '/books')).json.totalItems as number;
  let done = false;
  let reads = 0;
  const version = (title: string): number => Number(/^v(\d+)$/.exec(title)?.[1] ?? 0);
  /** The request's answer, or undefined when the connection failed and faults are expected. */
  const answer = async (sent: () => Promise<HttpResponse>): Promise<HttpResponse | undefined> => {
    try {
      return await sent();
    } catch (e) {
      if (options.connectionFaults && e instanceof TypeError) return undefined;
      throw e;
    }
  };

  const writer = async (): Promise<void> => {
    while (next < options.writes) {
      const n = ++next;
      // Versions are patched in order, so the stored title only grows.
      const patched = await answer(() =>
        request(turn(n), 'PATCH', '/books/1', { body: JSON.stringify({ title: `v${n}` }), headers: MERGE }),
      );
      if (patched) {
        expect(patched.status, patched.text).to.equal(200);
        acknowledged = Math.max(acknowledged, n);
      }
      const added = await answer(() =>
        request(turn(n + 1), 'POST', '/books', { body: { title: `extra ${n}`, author: '/authors/1' } }),
      );
      if (added) {
        expect(added.status, added.text).to.equal(201);
        created++;
      }
    }
  };
  const reader = async (index: number): Promise<void> => {
    for (let round = index; !done; round++) {
      const floor = acknowledged;
      const floorCount = created;
      const [item, page, sub] = await Promise.all([
        answer(() => request(turn(round), 'GET', '/books/1')),
        answer(() => request(turn(round + 1), 'GET', '/books?page=1')),
        answer(() => request(turn(round + 2), 'GET', '/authors/1/books')),
      ]);
      if (!item || !page || !sub) continue;
      expect(version(item.json.title), `GET /books/1 after v${floor} was acknowledged`).to.be.at.least(floor);
      const first = page.json.member.find((m: { id: number }) => m.id === 1);
      expect(version(first.title), `GET /books after v${floor}`).to.be.at.least(floor);
      expect(page.json.totalItems, 'GET /books totalItems').to.be.at.least(floorCount);
      expect(sub.json.totalItems, 'GET /authors/1/books totalItems').to.be.at.least(floorCount);
      reads += 3;
    }
  };
  // One writer: versions are acknowledged in order.
  const readers = Array.from({ length: options.readers }, (_, i) => reader(i));
  await writer();
  done = true;
  await Promise.all(readers);
  return reads;
}
