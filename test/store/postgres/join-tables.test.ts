/**
 * To-many relations in the PostgreSQL store (docs/postgresql.md, "To-many relations"): a join table per relation
 * (`book_tags`), with the owner's key, the member's position and the member's key, a foreign key to each side (the
 * owner's cascading, the member's as `onDelete`), read back as the same list of IRIs in order, written with the item
 * in one transaction, filtered through EXISTS, and a database from before (jsonb lists) converted.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import { POSTGRES } from '../../../server/diff/migration-postgres.js';
import { renamedSpec } from '../../../server/diff/renamed-spec.js';
import { loadApi } from '../../../server/load-api.js';
import { specsOf } from '../../../server/storage.js';
import {
  LayoutConflictError,
  MissingReferenceError,
  StillReferencedError,
  type Collection,
  type CollectionSpec,
  type Query,
} from '../../../server/store/types.js';
import { Refusal } from '../../../server/refusal.js';
import { openPostgresStore } from '../../../server/store/postgres/store.js';
import { postgresOrSkip, usePostgresStore } from '../../support/postgres.js';

// Book is declared (and opened) before Tag and Shop, which its lists name; Book.related names Book itself.
const API = `api "Lists" { version: "1" }

resource Book {
  properties {
    id: int { identifier: true }
    title: string { required: true }
    tags: Tag[]
    shops: Shop[] { onDelete: setNull }
    related: Book[] { onDelete: cascade }
  }
}

resource Tag {
  properties {
    code: string { identifier: true }
  }
}

resource Shop {
  properties {
    id: int { identifier: true }
    name: string
  }
}
`;

describe('PostgreSQL store: to-many relations as join tables', function () {
  this.timeout(60_000);
  let dir: string;
  let specs: CollectionSpec[];
  const db = usePostgresStore('lists');
  let books: Collection, tags: Collection, shops: Collection;

  const spec = (name: string): CollectionSpec => specs.find((s) => s.name === name)!;

  before(async function () {
    await postgresOrSkip(this);
    dir = mkdtempSync(join(tmpdir(), 'apidsl-pg-lists-'));
    writeFileSync(join(dir, 'lists.api'), API);
    specs = specsOf(await loadApi(join(dir, 'lists.api')));
  });
  after(() => dir && rmSync(dir, { recursive: true, force: true }));

  async function open(): Promise<void> {
    [books, tags, shops] = await Promise.all(['Book', 'Tag', 'Shop'].map((n) => db.store.collection(spec(n))));
  }

  const rows = async (sql: string): Promise<unknown[]> => (await db.sql.query(sql)).rows;

  it('makes a join table per to-many relation: two foreign keys, a position, a primary key, a member index', async () => {
    await open();
    const columns = await rows(
      `SELECT table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable AS c FROM information_schema.columns WHERE table_name IN ('book_tags', 'book_shops', 'book_related') ORDER BY table_name, ordinal_position`,
    );
    expect(columns.map((r) => (r as { c: string }).c)).to.deep.equal([
      'book_related.book_id bigint NO',
      'book_related.position integer NO',
      'book_related.related_id bigint NO',
      'book_shops.book_id bigint NO',
      'book_shops.position integer NO',
      'book_shops.shop_id bigint NO',
      'book_tags.book_id bigint NO',
      'book_tags.position integer NO',
      'book_tags.tag_code text NO',
    ]);
    const constraints = await rows(`
      SELECT c.conrelid::regclass || ' ' || pg_get_constraintdef(c.oid) AS d FROM pg_constraint c
       WHERE c.conrelid::regclass::text LIKE 'book\\_%' ORDER BY 1`);
    expect(constraints.map((r) => (r as { d: string }).d)).to.deep.equal([
      'book_related FOREIGN KEY (book_id) REFERENCES book(id) ON DELETE CASCADE',
      'book_related FOREIGN KEY (related_id) REFERENCES book(id) ON DELETE CASCADE',
      'book_related PRIMARY KEY (book_id, "position")',
      'book_shops FOREIGN KEY (book_id) REFERENCES book(id) ON DELETE CASCADE',
      'book_shops FOREIGN KEY (shop_id) REFERENCES shop(id) ON DELETE CASCADE',
      'book_shops PRIMARY KEY (book_id, "position")',
      'book_tags FOREIGN KEY (book_id) REFERENCES book(id) ON DELETE CASCADE',
      'book_tags FOREIGN KEY (tag_code) REFERENCES tag(code) DEFERRABLE INITIALLY DEFERRED',
      'book_tags PRIMARY KEY (book_id, "position")',
    ]);
    const indexes = await rows(`SELECT indexdef AS d FROM pg_indexes WHERE tablename = 'book_tags' ORDER BY 1`);
    expect(indexes.map((r) => (r as { d: string }).d)).to.include(
      'CREATE INDEX book_tags_tag_code_idx ON public.book_tags USING btree (tag_code)',
    );
    // The owner's table has no column for the lists; opening again changes nothing.
    const owner = await rows(`SELECT column_name AS c FROM information_schema.columns WHERE table_name = 'book'`);
    expect(owner.map((r) => (r as { c: string }).c)).to.not.include.members(['tags', 'shops', 'related']);
    expect(await db.store.schemaPlan!(specs)).to.deep.equal([]);
  });

  it('keeps a row per member in order and gives the same list back; absent, empty and odd lists too', async () => {
    await open();
    for (const code of ['b', 'a c', 'z']) await tags.insert({ code });
    const book = await books.insert({ title: 'T', tags: ['/tags/z', '/tags/a%20c', '/tags/b', '/tags/z'] });
    expect(await books.get(1)).to.deep.equal(book);
    expect(await rows(`SELECT book_id, position, tag_code FROM book_tags ORDER BY position`)).to.deep.equal([
      { book_id: '1', position: 1, tag_code: 'z' },
      { book_id: '1', position: 2, tag_code: 'a c' },
      { book_id: '1', position: 3, tag_code: 'b' },
      { book_id: '1', position: 4, tag_code: 'z' },
    ]);
    const empty = await books.insert({ title: 'E', tags: [] });
    const none = await books.insert({ title: 'N' });
    // Spelled otherwise, or no IRI of the target's: kept as written, the members of the target's form in rows.
    const odd = await books.insert({ title: 'O', tags: ['/tags/%62', 'urn:x'] });
    for (const item of [empty, none, odd]) expect(await books.get(item.id as number)).to.deep.equal(item);
    expect(await books.getMany([1, 2, 3, 4])).to.have.deep.members([book, empty, none, odd]);
    const page = await books.findPage({ sort: [{ field: 'id', direction: 'desc' }], limit: 2 });
    expect(page).to.deep.equal({ items: [odd, none], total: 4 });
    // Replaced: the rows follow the new list; removed with the item.
    await books.replace(1, { title: 'T', tags: ['/tags/b'] });
    expect((await books.get(1))!.tags).to.deep.equal(['/tags/b']);
    await books.upsert(1, { title: 'T' });
    expect(await books.get(1)).to.deep.equal({ id: 1, title: 'T' });
    await books.upsert(9, { title: 'U', tags: ['/tags/a%20c'] });
    expect(await books.delete(4)).to.equal(true);
    expect(await rows(`SELECT book_id, tag_code FROM book_tags ORDER BY 1, 2`)).to.deep.equal([
      { book_id: '9', tag_code: 'a c' },
    ]);
    const streamed = [];
    for await (const item of books.stream({})) streamed.push(item);
    expect(streamed.map((b) => b.tags)).to.deep.equal([undefined, [], undefined, ['/tags/a%20c']]);
  });

  it('refuses a member naming no item (the member named) and writes nothing of the item', async () => {
    await open();
    await tags.insert({ code: 'a' });
    const error = await books.insert({ title: 'x', tags: ['/tags/a', '/tags/missing'] }).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(MissingReferenceError);
    expect(error).to.deep.include({ field: 'tags', value: '/tags/missing' });
    expect(await books.count()).to.equal(0);
    const bulk = await books
      .insertMany([
        { title: 'y', tags: ['/tags/a'] },
        { title: 'z', related: ['/books/404'] },
      ])
      .catch((e: unknown) => e);
    expect(bulk).to.be.instanceOf(MissingReferenceError);
    expect(await rows(`SELECT count(*)::int AS n FROM book_tags`)).to.deep.equal([{ n: 0 }]);
    // In a transaction that goes on after a refused write (an import's batch): nothing of that item stays.
    await db.store.transaction!(async () => {
      const refusedThere = await books.insert({ title: 'w', tags: ['/tags/missing'] }).catch((e: unknown) => e);
      expect(refusedThere).to.be.instanceOf(MissingReferenceError);
      await books.insert({ title: 'v', tags: ['/tags/a'] });
    });
    expect((await books.find({})).map((b) => [b.title, b.tags])).to.deep.equal([['v', ['/tags/a']]]);
    let refused: unknown;
    await db.sql.query(`INSERT INTO book_tags VALUES (1, 1, 'a')`).catch((e: unknown) => (refused = e));
    expect((refused as { code?: string })?.code).to.equal('23503');
  });

  it('inserts an item without members in one statement, without a transaction; one with members in one', async () => {
    await open();
    await tags.insert({ code: 'a' });
    // What the store sends the server, read where the driver sends it.
    const sent: string[] = [];
    const query = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const first = args[0] as string | { text?: string };
      sent.push(typeof first === 'string' ? first : (first?.text ?? ''));
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    let plain: string[], listed: string[], empty: string[];
    try {
      await books.insert({ title: 'plain' });
      plain = sent.splice(0);
      await books.insert({ title: 'empty', tags: [] });
      empty = sent.splice(0);
      await books.insert({ title: 'listed', tags: ['/tags/a'] });
      listed = sent.splice(0);
    } finally {
      pg.Client.prototype.query = query;
    }
    expect(plain.map((t) => t.split(' ')[0])).to.deep.equal(['INSERT']);
    expect(empty.map((t) => t.split(' ')[0])).to.deep.equal(['INSERT']);
    expect(listed[0]).to.match(/^BEGIN/);
    expect(listed.at(-1)).to.equal('COMMIT');
    expect((await books.find({})).map((b) => b.tags)).to.deep.equal([undefined, [], ['/tags/a']]);
  });

  it('filters on members through the join table: eq, in, exists, match; another form matches nothing', async () => {
    await open();
    for (const code of ['a', 'b', 'c']) await tags.insert({ code });
    await books.insert({ title: 'ab', tags: ['/tags/a', '/tags/b'] });
    await books.insert({ title: 'c', tags: ['/tags/c'] });
    await books.insert({ title: 'empty', tags: [] });
    await books.insert({ title: 'none' });
    await books.insert({ title: 'self', related: ['/books/1', '/books/2'] });
    const titles = async (q: Query): Promise<string[]> => (await books.find(q)).map((b) => b.title as string);
    expect(await titles({ where: [{ op: 'eq', field: 'tags', value: '/tags/b' }] })).to.deep.equal(['ab']);
    expect(await titles({ where: [{ op: 'in', field: 'tags', values: ['/tags/c', '/tags/a', 'x'] }] })).to.deep.equal([
      'ab',
      'c',
    ]);
    expect(await titles({ where: [{ op: 'exists', field: 'tags', exists: true }] })).to.deep.equal(['ab', 'c']);
    expect(await titles({ where: [{ op: 'exists', field: 'tags', exists: false }] })).to.deep.equal([
      'empty',
      'none',
      'self',
    ]);
    const match = { op: 'match', field: 'tags', value: '/TAGS/C', mode: 'exact', caseInsensitive: true } as const;
    expect(await titles({ where: [match] })).to.deep.equal(['c']);
    expect(await titles({ where: [{ op: 'eq', field: 'related', value: '/books/2' }] })).to.deep.equal(['self']);
    // Nested: the books whose related books have tag a; a scope's path to the owner through a to-one.
    const refers = { op: 'refers', field: 'id', target: spec('Book'), keyPrefix: '' } as const;
    const tagged = { ...refers, where: [{ op: 'eq', field: 'tags', value: '/tags/a' } as const] };
    expect(await books.count([tagged])).to.equal(1);
    for (const value of ['/tags/x', '/shops/1', '', 'urn:a'])
      expect(await titles({ where: [{ op: 'eq', field: 'tags', value }] }), value).to.deep.equal([]);
    expect(await books.count([{ op: 'in', field: 'tags', values: [] }])).to.equal(0);
  });

  it("applies the member side's ON DELETE: restrict refuses, cascade and setNull drop the member", async () => {
    await open();
    await tags.insert({ code: 't' });
    await shops.insert({ name: 'S' });
    await books.insert({ title: 'a', tags: ['/tags/t'], shops: ['/shops/1'] });
    await books.insert({ title: 'b', related: ['/books/1'] });
    expect(await tags.delete('t').catch((e: unknown) => e)).to.be.instanceOf(StillReferencedError);
    // Checked at commit: a transaction may delete a listed member before its owner (an owned item), not keep both.
    const kept = db.store.transaction!(async () => expect(await tags.delete('t')).to.equal(true));
    expect(await kept.catch((e: unknown) => e)).to.be.instanceOf(StillReferencedError);
    expect(await tags.count()).to.equal(1);
    await books.insert({ title: 'c', tags: ['/tags/t'] });
    await db.store.transaction!(async () => {
      await tags.delete('t');
      await books.delete(3);
      await books.replace(1, { title: 'a', shops: ['/shops/1'] });
    });
    await tags.insert({ code: 't' });
    await books.replace(1, { title: 'a', tags: ['/tags/t'], shops: ['/shops/1'] });
    expect(await shops.delete(1)).to.equal(true);
    expect(await books.get(1)).to.deep.equal({ id: 1, title: 'a', tags: ['/tags/t'] });
    expect(await books.delete(1)).to.equal(true);
    expect(await books.get(2)).to.deep.equal({ id: 2, title: 'b' });
  });

  it('moves the lists of a database from before (jsonb columns) into the join tables, or refuses with the SQL', async () => {
    const plain = (s: CollectionSpec): CollectionSpec => ({ ...s, relations: undefined });
    for (const name of ['Book', 'Tag', 'Shop']) await db.store.collection(plain(spec(name)));
    await db.sql.query(`INSERT INTO tag (code) VALUES ('a'), ('b')`);
    await db.sql.query(
      `INSERT INTO book (title, tags) VALUES ('T', '["/tags/b", "/tags/a"]'), ('E', '[]'), ('N', NULL)`,
    );
    const plan = (await db.store.schemaPlan!(specs)).join('\n');
    expect(plan).to.include('CREATE TABLE "book_tags"');
    expect(plan).to.include('INSERT INTO "book_tags" ("book_id", "position", "tag_code") SELECT');
    expect(plan).to.include('ALTER TABLE "book" DROP COLUMN "tags"');
    await open();
    expect(await books.find({})).to.deep.equal([
      { id: 1, title: 'T', tags: ['/tags/b', '/tags/a'] },
      { id: 2, title: 'E', tags: [] },
      { id: 3, title: 'N' },
    ]);
    expect(await db.store.schemaPlan!(specs)).to.deep.equal([]);

    await db.sql.query(`DROP TABLE book CASCADE; DROP TABLE book_tags, book_shops, book_related`);
    await db.store.collection(plain(spec('Book')));
    await db.sql.query(`INSERT INTO book (title, shops) VALUES ('T', '["/elsewhere/1"]')`);
    const error = await db.store.collection(spec('Book')).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(LayoutConflictError);
    expect((error as Error).message).to.include('running: INSERT INTO "book_shops"');
    expect(await rows(`SELECT to_regclass('book_shops') AS t`)).to.deep.equal([{ t: null }]);
  });

  it("renames a join table with its relation (apidsl diff's plan): the store finds it as it would make it", async () => {
    await open();
    await tags.insert({ code: 'a' });
    await books.insert({ title: 'T', tags: ['/tags/a'] });
    for (const command of POSTGRES.renameField(spec('Book'), 'tags', 'labels')) await db.sql.query(command);
    const renamed = renamedSpec(spec('Book'), new Map([['tags', 'labels']]), 'Book');
    const others = specs.filter((s) => s.name !== 'Book');
    expect(await db.store.schemaPlan!([renamed, ...others])).to.deep.equal([]);
    const labelled = await db.store.collection(renamed);
    expect(await labelled.get(1)).to.deep.equal({ id: 1, title: 'T', labels: ['/tags/a'] });
    expect(await rows(`SELECT to_regclass('book_tags') AS t`)).to.deep.equal([{ t: null }]);
  });

  it("refuses a join table named as another table (a resource's, or another join table), whichever opens first", async () => {
    // Book.tags and the resource BookTags are both `book_tags`; Book.shelfTags and Shelf.tags (its table named
    // `book_shelf`) both `book_shelf_tags`.
    const clashing = `api "Clash" { version: "1" }
resource Book { properties { id: int { identifier: true }, tags: Tag[], shelfTags: Tag[] } }
resource Tag { properties { code: string { identifier: true } } }
resource BookTags {
  properties { id: int { identifier: true }, note: string }
}
resource Shelf {
  stateOptions: { table: "book_shelf" }
  properties { id: int { identifier: true }, tags: Tag[] }
}
`;
    writeFileSync(join(dir, 'clash.api'), clashing);
    const all = specsOf(await loadApi(join(dir, 'clash.api')));
    const named = (n: string): CollectionSpec => all.find((s) => s.name === n)!;
    const refusal = async (opening: Promise<unknown>): Promise<string> => {
      const error = await opening.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(Refusal);
      return (error as Error).message;
    };
    const tagsClash =
      'PostgreSQL cannot keep the join table of Book.tags and the table of resource BookTags in one table "book_tags"';
    expect(await refusal(db.store.schemaPlan!(all))).to.include(tagsClash);
    // Nothing is made for the collection refused; either order is refused.
    await db.store.collection(named('Tag'));
    const reversed = await refusal(
      db.store.collection(named('BookTags')).then(() => db.store.collection(named('Book'))),
    );
    expect(reversed).to.include(
      'cannot keep the table of resource BookTags and the join table of Book.tags in one table "book_tags"',
    );
    expect(await rows(`SELECT to_regclass('book') AS t`)).to.deep.equal([{ t: null }]);
    // Another process, whose file no longer has BookTags: its table is no join table, and is left alone.
    const reopened = await openPostgresStore({ url: db.url });
    try {
      await reopened.collection(named('Tag'));
      expect(await refusal(reopened.collection(named('Book')))).to.equal(
        'PostgreSQL cannot keep the join table of Book.tags in the table "book_tags": it is another table (it lacks ' +
          'the columns "book_id", "position", "tag_code"); rename the property or the resource, or name the ' +
          'resource\'s table (stateOptions: { table: "…" })',
      );
      expect(await refusal(reopened.schemaPlan!([named('Book'), named('Shelf'), named('Tag')]))).to.equal(
        'PostgreSQL cannot keep the join table of Book.shelfTags and the join table of Shelf.tags in one table ' +
          '"book_shelf_tags": rename the property or the resource, or name the resource\'s table (stateOptions: { table: "…" })',
      );
      expect(await rows(`SELECT to_regclass('book') AS b, to_regclass('book_shelf') AS s`)).to.deep.equal([
        { b: null, s: null },
      ]);
    } finally {
      await reopened.close();
    }
    // Named apart (the table BookTags had made dropped: the name is Book.tags' now), they open.
    await db.sql.query('DROP TABLE book_tags');
    const apart = clashing.replace(
      'resource BookTags {',
      'resource BookTags {\n  stateOptions: { table: "book_tag_notes" }\n',
    );
    writeFileSync(join(dir, 'apart.api'), apart.replace('shelfTags: Tag[]', 'shelvedTags: Tag[]'));
    const fine = specsOf(await loadApi(join(dir, 'apart.api')));
    const store = await openPostgresStore({ url: db.url });
    try {
      for (const s of fine) await store.collection(s);
      expect(await store.schemaPlan!(fine)).to.deep.equal([]);
    } finally {
      await store.close();
    }
  });
});
