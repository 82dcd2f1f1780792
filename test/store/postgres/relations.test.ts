/**
 * Relations in the PostgreSQL store (docs/postgresql.md, "Relations"): a to-one relation to a stored resource is a
 * column of the target's key type with a real FOREIGN KEY whose ON DELETE is the relation's `onDelete`, indexed,
 * whatever order the tables are made in (self-references and cycles included); items still carry IRIs in and out,
 * conditions on the relation take IRIs; the database itself refuses a dangling row; a database from before (text
 * IRI columns) is converted, or refused with the SQL when an IRI is of another form.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { loadApi } from '../../../server/load-api.js';
import { specsOf } from '../../../server/storage.js';
import {
  LayoutConflictError,
  MissingReferenceError,
  StillReferencedError,
  type Collection,
  type CollectionSpec,
} from '../../../server/store/types.js';
import { postgresOrSkip, usePostgresStore } from '../../support/postgres.js';

// Book is declared (and opened) before Shop and Tag, which it references; Shop references Book back (a cycle).
const API = `api "Relations" { version: "1" }

resource Book {
  properties {
    id: int { identifier: true }
    title: string { required: true }
    shop: Shop { onDelete: cascade }
    sequel: Book { onDelete: setNull }
    tag: Tag
  }
}

resource Shop {
  properties {
    id: int { identifier: true }
    name: string
    flagship: Book { onDelete: setNull }
  }
}

resource Tag {
  properties {
    code: string { identifier: true }
  }
}
`;

describe('PostgreSQL store: relations as foreign keys', function () {
  this.timeout(60_000);
  let dir: string;
  let specs: CollectionSpec[];
  const db = usePostgresStore('relations');
  let books: Collection, shops: Collection, tags: Collection;

  const spec = (name: string): CollectionSpec => specs.find((s) => s.name === name)!;

  before(async function () {
    await postgresOrSkip(this);
    dir = mkdtempSync(join(tmpdir(), 'apidsl-pg-relations-'));
    writeFileSync(join(dir, 'relations.api'), API);
    specs = specsOf(await loadApi(join(dir, 'relations.api')));
  });
  after(() => dir && rmSync(dir, { recursive: true, force: true }));

  async function open(): Promise<void> {
    // In the file's order: Book's foreign keys name tables not made yet.
    [books, shops, tags] = await Promise.all(['Book', 'Shop', 'Tag'].map((n) => db.store.collection(spec(n))));
  }

  /** Each foreign key of the database as `table.column -> table.column ON DELETE action`. */
  async function foreignKeys(): Promise<string[]> {
    const rows = await db.sql.query<{ fk: string }>(`
      SELECT c.conrelid::regclass || '.' || a.attname || ' -> ' || c.confrelid::regclass || '.' || fa.attname
             || ' ON DELETE ' || r.delete_rule AS fk
        FROM pg_constraint c
        JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
        JOIN pg_attribute fa ON fa.attrelid = c.confrelid AND fa.attnum = c.confkey[1]
        JOIN information_schema.referential_constraints r ON r.constraint_name = c.conname
       WHERE c.contype = 'f' ORDER BY 1`);
    return rows.rows.map((r) => r.fk);
  }

  const columnType = async (table: string, column: string): Promise<string> =>
    (
      await db.sql.query<{ t: string }>(
        `SELECT data_type AS t FROM information_schema.columns WHERE table_name = $1 AND column_name = $2`,
        [table, column],
      )
    ).rows[0]!.t;

  it('makes a column of the key type with a foreign key per relation, ON DELETE as onDelete, indexed', async () => {
    await open();
    expect(await foreignKeys()).to.deep.equal([
      'book.sequel -> book.id ON DELETE SET NULL',
      'book.shop -> shop.id ON DELETE CASCADE',
      'book.tag -> tag.code ON DELETE RESTRICT',
      'shop.flagship -> book.id ON DELETE SET NULL',
    ]);
    expect(await columnType('book', 'shop')).to.equal('bigint');
    expect(await columnType('book', 'tag')).to.equal('text');
    const indexes = await db.sql.query<{ d: string }>(`SELECT indexdef AS d FROM pg_indexes WHERE tablename = 'book'`);
    expect(indexes.rows.map((r) => r.d)).to.include(
      'CREATE INDEX book_shop_idx ON public.book USING btree (shop NULLS FIRST, id)',
    );
    // Opening again changes nothing.
    expect(await db.store.schemaPlan!(specs)).to.deep.equal([]);
  });

  it('keeps the key in the column and gives the IRI back; an IRI of another form is kept as written', async () => {
    await open();
    await shops.insert({ name: 'A' });
    await tags.insert({ code: 'sci fi' });
    const book = await books.insert({ title: 'T', shop: '/shops/1', tag: '/tags/sci%20fi' });
    expect(await books.get(book.id as number)).to.deep.equal(book);
    const row = (await db.sql.query(`SELECT shop, tag, "_apidsl:extra" AS extra FROM book`)).rows[0] as Record<
      string,
      unknown
    >;
    expect(row).to.deep.equal({ shop: '1', tag: 'sci fi', extra: null });
    // Spelled otherwise (`/shops/01`): the key in the column, the spelling kept beside it; not of the target's
    // form (`urn:x`): no key, kept among the extra members. Both read back as written.
    const odd = await books.insert({ title: 'Odd', shop: '/shops/01', sequel: 'urn:x' });
    expect(await books.get(odd.id as number)).to.deep.equal(odd);
    const oddRow = (await db.sql.query(`SELECT shop, sequel FROM book WHERE title = 'Odd'`)).rows[0] as object;
    expect(oddRow).to.deep.equal({ shop: '1', sequel: null });
    const named = await books.find({ where: [{ op: 'eq', field: 'shop', value: '/shops/1' }] });
    expect(named.map((b) => b.title)).to.deep.equal(['T', 'Odd']);
  });

  it('answers conditions on a relation with IRIs: eq, in, ne, exists, order, refers; another form matches nothing', async () => {
    await open();
    for (const name of ['A', 'B', 'C']) await shops.insert({ name });
    await shops.insert({ id: 10, name: 'J' });
    const named = [
      ['a', '/shops/1'],
      ['b', '/shops/2'],
      ['c', '/shops/10'],
      ['d', undefined],
    ] as const;
    for (const [title, shop] of named) await books.insert({ title, ...(shop ? { shop } : {}) });
    const titles = async (where: Parameters<Collection['find']>[0]): Promise<string[]> =>
      (await books.find(where)).map((b) => b.title as string);
    expect(await titles({ where: [{ op: 'eq', field: 'shop', value: '/shops/2' }] })).to.deep.equal(['b']);
    expect(
      await titles({ where: [{ op: 'in', field: 'shop', values: ['/shops/1', '/shops/10', 'x'] }] }),
    ).to.deep.equal(['a', 'c']);
    expect(await titles({ where: [{ op: 'ne', field: 'shop', value: '/shops/2' }] })).to.deep.equal(['a', 'c']);
    expect(await titles({ where: [{ op: 'exists', field: 'shop', exists: false }] })).to.deep.equal(['d']);
    // Ordered as the IRIs' text, as the other stores order them.
    expect(await titles({ sort: [{ field: 'shop', direction: 'asc' }] })).to.deep.equal(['d', 'a', 'c', 'b']);
    const refers = { op: 'refers', field: 'shop', target: spec('Shop'), keyPrefix: '/shops/' } as const;
    expect(await titles({ where: [{ ...refers, where: [{ op: 'eq', field: 'name', value: 'B' }] }] })).to.deep.equal([
      'b',
    ]);
    for (const value of ['/shops/x', '/tags/1', '/shops/1/', '', '/shops/99999999999999999999'])
      expect(await titles({ where: [{ op: 'eq', field: 'shop', value }] }), value).to.deep.equal([]);
    expect(await books.count([{ op: 'in', field: 'shop', values: ['/shops/-1'] }])).to.equal(0);
  });

  it('is refused by the database itself: a row naming a missing key, through SQL or through the store', async () => {
    await open();
    let refused: unknown;
    await db.sql.query(`INSERT INTO book (title, shop) VALUES ('x', 42)`).catch((e: unknown) => (refused = e));
    expect((refused as { code?: string })?.code).to.equal('23503');
    const error = await books.insert({ title: 'x', shop: '/shops/42' }).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(MissingReferenceError);
    expect(error).to.deep.include({ field: 'shop', value: '/shops/42' });
    expect(await books.count()).to.equal(0);
  });

  it("applies the foreign keys' own ON DELETE: cascade, set null, restrict (StillReferencedError)", async () => {
    await open();
    await shops.insert({ name: 'A' });
    await tags.insert({ code: 't' });
    await books.insert({ title: 'first', shop: '/shops/1', tag: '/tags/t' });
    await books.insert({ title: 'second', sequel: '/books/1' });
    expect(await tags.delete('t').catch((e: unknown) => e)).to.be.instanceOf(StillReferencedError);
    expect(await shops.delete(1)).to.equal(true);
    expect(await books.get(1)).to.equal(null);
    expect(await books.get(2)).to.deep.equal({ id: 2, title: 'second' });
  });

  it('converts a database from before (IRIs in text columns) when opened, and refuses an IRI of another form', async () => {
    const plain = (s: CollectionSpec): CollectionSpec => ({ ...s, relations: undefined });
    for (const name of ['Book', 'Shop', 'Tag']) await db.store.collection(plain(spec(name)));
    await db.sql.query(`INSERT INTO shop (name) VALUES ('A'); INSERT INTO tag (code) VALUES ('t')`);
    await db.sql.query(`INSERT INTO book (title, shop, tag) VALUES ('T', '/shops/1', '/tags/t')`);
    await open();
    expect(await columnType('book', 'shop')).to.equal('bigint');
    expect(await books.get(1)).to.deep.equal({ id: 1, title: 'T', shop: '/shops/1', tag: '/tags/t' });
    expect(await foreignKeys()).to.have.length(4);

    await db.sql.query(`DROP TABLE book CASCADE`);
    await db.store.collection(plain(spec('Book')));
    await db.sql.query(`INSERT INTO book (title, shop) VALUES ('T', '/elsewhere/1')`);
    const plan = await db.store.schemaPlan!(specs);
    expect(plan.join('\n')).to.include('ALTER TABLE "book" ALTER COLUMN "shop" TYPE bigint USING');
    const error = await db.store.collection(spec('Book')).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(LayoutConflictError);
    expect((error as Error).message).to.include('running: ALTER TABLE "book" ALTER COLUMN "shop" TYPE bigint');
    expect(await columnType('book', 'shop')).to.equal('text');
  });
});
