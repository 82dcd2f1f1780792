/**
 * kill -9 of `apidsl serve --db postgres://…` under concurrent POSTs (issue 42): clients POST books with their author
 * as a nested document (two rows in one transaction) and batches of books (all or none) until the server is killed.
 * Served again on the same database, every write answered 201 reads back, and no write is there by halves: no author
 * without its book, no batch in part.
 */
import { expect } from 'chai';
import pg from 'pg';
import { fixture, request, startServer, type RunningServer } from '../../http/harness.js';
import { dropPostgresDatabase, freshPostgresUrl, postgresOrSkip } from '../../support/postgres.js';

const CLIENTS = 8;
const BATCH = 50;

interface Acknowledged {
  /** A nested write: the book's title, also its author's name. */
  title?: string;
  /** A batch: its name, on each of its books. */
  batch?: string;
  iris: string[];
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function post(base: string, path: string, body: unknown): Promise<{ status: number; json?: any }> {
  try {
    const res = await fetch(base + path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/ld+json' },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, json: res.status === 201 ? JSON.parse(text) : undefined };
  } catch {
    return { status: 0 }; // the server died with the request in flight: its outcome is unknown
  }
}

/** A client alternating a nested write and a batch, until the server no longer answers. */
async function client(base: string, n: number, acknowledged: Acknowledged[]): Promise<void> {
  for (let i = 0; ; i++) {
    if (i % 2 === 0) {
      const title = `client ${n} write ${i}`;
      const r = await post(base, '/books', { title, author: { name: title } });
      if (r.status === 0) return;
      if (r.status === 201) acknowledged.push({ title, iris: [r.json['@id'], r.json.author] });
    } else {
      const batch = `client ${n} batch ${i}`;
      const books = Array.from({ length: BATCH }, (_, k) => ({ title: `${batch} #${k}`, batch }));
      const r = await post(base, '/bulk-books', books);
      if (r.status === 0) return;
      if (r.status === 201) acknowledged.push({ batch, iris: r.json.member.map((m: any) => m['@id']) });
    }
  }
}

describe('PostgreSQL store: kill -9 of the server under concurrent POSTs', function () {
  this.timeout(180_000);
  let url: string | undefined;
  let api: RunningServer | undefined;

  before(async function () {
    await postgresOrSkip(this);
    url = await freshPostgresUrl('kill');
  });
  after(async () => {
    await api?.stop();
    if (url) await dropPostgresDatabase(url);
  });

  it('loses no acknowledged write and leaves no write by halves', async () => {
    api = await startServer(fixture('durability.api'), ['--db', url!]);
    const acknowledged: Acknowledged[] = [];
    const clients = Array.from({ length: CLIENTS }, (_, n) => client(api!.url, n, acknowledged));
    for (let waited = 0; acknowledged.length < 40 && waited < 60_000; waited += 50) await sleep(50);
    process.kill(api.pid, 'SIGKILL');
    await Promise.all(clients);
    expect(acknowledged.length, 'writes acknowledged before the kill').to.be.at.least(40);

    api = await startServer(fixture('durability.api'), ['--db', url!]);
    for (const write of acknowledged)
      for (const iri of write.iris) {
        const r = await request(api.url, 'GET', iri);
        expect(r.status, `${iri} of ${write.title ?? write.batch}: ${r.text}`).to.equal(200);
        if (write.title) expect(r.json[iri.startsWith('/books') ? 'title' : 'name']).to.equal(write.title);
        else expect(r.json.batch).to.equal(write.batch);
      }

    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      const orphans = await db.query(
        `SELECT name FROM author WHERE NOT EXISTS (SELECT 1 FROM book WHERE book.author = '/authors/' || author.id)`,
      );
      expect(orphans.rows, 'authors stored without their book').to.deep.equal([]);
      const partial = await db.query(
        `SELECT batch, count(*) AS n FROM book WHERE batch IS NOT NULL GROUP BY batch HAVING count(*) <> ${BATCH}`,
      );
      expect(partial.rows, 'batches stored in part').to.deep.equal([]);
    } finally {
      await db.end();
    }
  });
});
