/**
 * An identifier whose type changes on an empty table: the store makes its table again, and its join tables, which
 * it drops only when each is this list's join table (its columns, its foreign key to the owner's table) and empty;
 * a table of that name that is another's is kept, and the change refused (docs/postgresql.md, "Schema changes").
 */
import { expect } from 'chai';
import { loadApi } from '../../../server/load-api.js';
import { specsOf } from '../../../server/storage.js';
import type { CollectionSpec } from '../../../server/store/types.js';
import { usePostgresStore } from '../../support/postgres.js';
import { apiFolder, bookApi, refusal } from '../../support/schema-changes.js';

describe('PostgreSQL store: an identifier type change on an empty table', function () {
  this.timeout(120_000);
  const write = apiFolder('apidsl-pg-rekey-');
  const db = usePostgresStore('rekey');
  const LISTED = '    title: string\n    tags: Tag[]';
  let intKeyed: CollectionSpec[];
  let stringKeyed: CollectionSpec[];
  const book = (specs: CollectionSpec[]): CollectionSpec => specs.find((s) => s.name === 'Book')!;
  const tag = (specs: CollectionSpec[]): CollectionSpec => specs.find((s) => s.name === 'Tag')!;

  beforeEach(async () => {
    intKeyed = specsOf(await loadApi(write('int.api', bookApi(`    id: int { identifier: true }\n${LISTED}`))));
    stringKeyed = specsOf(await loadApi(write('str.api', bookApi(`    id: string { identifier: true }\n${LISTED}`))));
  });

  it("makes its own empty join table again with the new key's type", async () => {
    for (const s of intKeyed) await db.store.collection(s);
    expect(await db.store.schemaPlan!(stringKeyed)).to.include.members([
      'DROP TABLE "book_tags"',
      'DROP TABLE "book" CASCADE',
    ]);
    await db.store.collection(tag(stringKeyed));
    const books = await db.store.collection(book(stringKeyed));
    await books.insert({ id: 'dune', title: 'Dune', tags: [] });
    const owner = await db.sql.query(
      `SELECT data_type AS t FROM information_schema.columns WHERE table_name = 'book_tags' AND column_name = 'book_id'`,
    );
    expect(owner.rows).to.deep.equal([{ t: 'text' }]);
  });

  for (const [what, made, message] of [
    [
      "a table of its own (a person's, not a join table)",
      `CREATE TABLE book_tags (note text); INSERT INTO book_tags VALUES ('kept')`,
      'its columns',
    ],
    [
      "a leftover join table of another owner's, with rows",
      `CREATE TABLE old_book (id bigint PRIMARY KEY); INSERT INTO old_book VALUES (1);
         CREATE TABLE book_tags (book_id bigint NOT NULL REFERENCES old_book (id), position integer NOT NULL, tag_code text NOT NULL);
         INSERT INTO book_tags VALUES (1, 1, 'kept')`,
      'its foreign key to "book"',
    ],
  ] as const)
    it(`refuses, dropping nothing, when the join table's name is ${what}`, async () => {
      for (const s of intKeyed) await db.store.collection(s);
      await db.sql.query(`DROP TABLE book_tags`);
      await db.sql.query(made);
      const expected =
        'Book: the identifier type changed to string, so its tables are made again, but the table "book_tags" is ' +
        `not the join table of Book.tags (it lacks ${message}): it is kept; rename or drop it by hand`;
      expect(await refusal(db.store.schemaPlan!(stringKeyed))).to.equal(expected);
      const reopened = db.store.collection(tag(stringKeyed)).then(() => db.store.collection(book(stringKeyed)));
      expect(await refusal(reopened)).to.equal(expected);
      const kept = await db.sql.query(`SELECT count(*)::int AS n FROM book_tags`);
      expect(kept.rows).to.deep.equal([{ n: 1 }]);
      const key = await db.sql.query(
        `SELECT data_type AS t FROM information_schema.columns WHERE table_name = 'book' AND column_name = 'id'`,
      );
      expect(key.rows).to.deep.equal([{ t: 'bigint' }]);
    });
});
