/**
 * An identifier whose type changes on an empty table, with other tables referring to it: `DROP TABLE … CASCADE`
 * takes their foreign keys too, so the store converts each referring column (empty: the table is) to the new key's
 * type and adds its foreign key again, in the transaction that makes the table again, and lists those statements in
 * the plan; a referring column that holds keys refuses the change before anything runs (docs/postgresql.md,
 * "Schema changes").
 */
import { expect } from 'chai';
import { loadApi } from '../../../server/load-api.js';
import { openCollections } from '../../../server/pipeline/open-runtime.js';
import { refuseUnsafeChanges } from '../../../server/store/layout.js';
import { specsOf } from '../../../server/storage.js';
import type { CollectionSpec } from '../../../server/store/types.js';
import { usePostgresStore } from '../../support/postgres.js';
import { apiFolder, migrate, planned, refusal, statementsOf } from '../../support/schema-changes.js';

/**
 * A Tag keyed by `code` of the type `key`, and a Book (keyed by an int, or `bookKey`) referring to it by a to-one and
 * a to-many relation; Book declared first with `bookFirst` (resources open in the file's order).
 */
const api = (key: string, bookKey = 'int', bookFirst = false): string => {
  const tag = `resource Tag {\n  properties { code: ${key} { identifier: true } }\n  operations { Post, Get }\n}\n`;
  const book =
    `resource Book {\n  properties {\n    id: ${bookKey} { identifier: true }\n    title: string\n` +
    '    tag: Tag { onDelete: setNull }\n    tags: Tag[]\n  }\n  operations { GetCollection, Post, Get }\n}\n';
  return bookFirst ? book + tag : tag + book;
};

describe("PostgreSQL store: the tables referring to a table whose identifier's type changed", function () {
  this.timeout(120_000);
  const write = apiFolder('apidsl-pg-referrers-');
  const db = usePostgresStore('referrers');
  let stringKeyed: CollectionSpec[];
  let intKeyed: CollectionSpec[];
  const named = (specs: CollectionSpec[], name: string): CollectionSpec => specs.find((s) => s.name === name)!;

  beforeEach(async () => {
    stringKeyed = specsOf(await loadApi(write('str.api', api('string'))));
    intKeyed = specsOf(await loadApi(write('int.api', api('int'))));
    for (const s of stringKeyed) await db.store.collection(s);
    await db.sql.query(`INSERT INTO book (title) VALUES ('Dune')`); // no tag: Tag's table is empty
  });

  /** The referring columns converted to Tag's int key, and their foreign keys added again. */
  const CONVERTED = {
    types: ['book.tag bigint', 'book_tags.tag_code bigint', 'tag.code bigint'],
    keys: [
      'book_tag_fkey FOREIGN KEY (tag) REFERENCES tag(code) ON DELETE SET NULL',
      'book_tags_tag_code_fkey FOREIGN KEY (tag_code) REFERENCES tag(code) DEFERRABLE INITIALLY DEFERRED',
    ],
  };

  /** The type of a column, and the foreign keys naming the tag table. */
  async function referrers(): Promise<{ types: string[]; keys: string[] }> {
    const types = await db.sql.query(
      `SELECT table_name || '.' || column_name || ' ' || data_type AS t FROM information_schema.columns WHERE (table_name, column_name) IN (('book', 'tag'), ('book_tags', 'tag_code'), ('tag', 'code')) ORDER BY 1`,
    );
    const keys = await db.sql.query(
      `SELECT conname || ' ' || pg_get_constraintdef(oid) AS k FROM pg_constraint WHERE confrelid = 'tag'::regclass ORDER BY 1`,
    );
    return { types: types.rows.map((r) => r.t as string), keys: keys.rows.map((r) => r.k as string) };
  }

  for (const order of [
    ['Tag', 'Book'],
    ['Book', 'Tag'],
  ])
    it(`converts the empty referring columns and adds their foreign keys again (opened ${order.join(', then ')})`, async () => {
      const plan = await db.store.schemaPlan!(order.map((n) => named(intKeyed, n)));
      const ran = await statementsOf(async () => {
        for (const name of order) await db.store.collection(named(intKeyed, name));
      });
      expect([...plan].map((s) => s.replace(/\n\s*/g, ' ')).sort()).to.deep.equal([...ran].sort());
      expect(await referrers()).to.deep.equal(CONVERTED);
      const tags = await db.store.collection(named(intKeyed, 'Tag'));
      const books = await db.store.collection(named(intKeyed, 'Book'));
      await tags.insert({ code: 7 });
      await books.insert({ id: 2, title: 'Emma', tag: '/tags/7', tags: ['/tags/7'] });
      expect(await books.get(2)).to.deep.include({ tag: '/tags/7', tags: ['/tags/7'] });
    });

  it('apidsl migrate lists what it runs, the foreign keys added again included', async () => {
    const file = write('int.api', api('int'));
    const dry = await migrate(file, db.url, true);
    expect(dry.code, dry.err).to.equal(0);
    const plan = planned(dry.out);
    expect(plan).to.include(
      'ALTER TABLE "book_tags" ADD CONSTRAINT "book_tags_tag_code_fkey" ' +
        'FOREIGN KEY (tag_code) REFERENCES tag(code) DEFERRABLE INITIALLY DEFERRED',
    );
    const ran = await statementsOf(async () => expect((await migrate(file, db.url)).code).to.equal(0));
    expect([...plan].sort()).to.deep.equal([...ran].sort());
    expect((await referrers()).types).to.deep.equal(CONVERTED.types);
  });

  it('refuses before anything runs when a referring column holds keys of the old type', async () => {
    // Only a load past the foreign keys leaves such a key (the tag table is empty).
    await db.sql.query(
      `SET session_replication_role = replica; INSERT INTO book_tags VALUES (1, 1, 'sf'); SET session_replication_role = DEFAULT`,
    );
    const expected =
      'Tag: the identifier type changed to int, so its table is made again, but 1 row of the table "book_tags" ' +
      'holds keys of the old type in "tag_code" (foreign key "book_tags_tag_code_fkey"): remove them first';
    expect(await refusal(db.store.schemaPlan!(intKeyed))).to.equal(expected);
    expect(await refusal(db.store.collection(named(intKeyed, 'Tag')))).to.equal(expected);
    const run = await migrate(write('int.api', api('int')), db.url);
    expect(run.code).to.equal(1);
    expect(run.err).to.include(expected);
    expect((await referrers()).types).to.deep.equal(['book.tag text', 'book_tags.tag_code text', 'tag.code text']);
  });

  for (const bookFirst of [false, true])
    it(`makes both tables again when Tag's and Book's keys change together (${bookFirst ? 'Book' : 'Tag'} opened first)`, async () => {
      await db.sql.query(`DELETE FROM book`);
      const both = await loadApi(write('both.api', api('int', 'string', bookFirst)));
      const plan = await db.store.schemaPlan!(specsOf(both));
      const ran = await statementsOf(async () => {
        await refuseUnsafeChanges(db.store, specsOf(both)); // as serve opens the store
        await openCollections(both, db.store);
      });
      expect([...plan].map((s) => s.replace(/\n\s*/g, ' ')).sort()).to.deep.equal([...ran].sort());
      expect(await referrers()).to.deep.equal(CONVERTED);
      const collections = await openCollections(both, db.store);
      await collections.get('Tag')!.insert({ code: 7 });
      await collections.get('Book')!.insert({ id: 'emma', title: 'Emma', tag: '/tags/7', tags: ['/tags/7'] });
      expect(await collections.get('Book')!.get('emma')).to.deep.include({ tag: '/tags/7', tags: ['/tags/7'] });
    });

  it("apidsl migrate lists what it runs when Tag's and Book's keys change together, Book opened first", async () => {
    await db.sql.query(`DELETE FROM book`);
    const file = write('both.api', api('int', 'string', true));
    const dry = await migrate(file, db.url, true);
    expect(dry.code, dry.err).to.equal(0);
    const ran = await statementsOf(async () => expect((await migrate(file, db.url)).code).to.equal(0));
    expect([...planned(dry.out)].sort()).to.deep.equal([...ran].sort());
    expect((await referrers()).types).to.deep.equal(CONVERTED.types);
  });
});
