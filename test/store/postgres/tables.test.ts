/**
 * The PostgreSQL store's tables read as a person expects (docs/postgresql.md): one per resource in snake case (or
 * `table`), a typed column per field, NOT NULL for required ones, an identity primary key, indexes for the listed
 * fields, unique indexes; a later layout adds columns and indexes and relaxes NOT NULL; values the typed columns
 * cannot hold exactly come back as they were written.
 */
import { expect } from 'chai';
import pg from 'pg';
import { compileFind } from '../../../server/store/postgres/query.js';
import { tableOf } from '../../../server/store/postgres/table.js';
import type { CollectionSpec } from '../../../server/store/types.js';
import { usePostgresStore } from '../../support/postgres.js';

const REVIEW: CollectionSpec = {
  name: 'BookReview',
  identifier: { field: 'id', type: 'int' },
  fields: {
    id: 'int',
    title: 'string',
    rating: 'number',
    publishedAt: 'datetime',
    day: 'date',
    approved: 'bool',
    book: 'iri',
    tags: 'array',
    meta: 'json',
  },
  indexes: [['rating'], ['publishedAt', 'id'], ['tags']],
  unique: [['title']],
  rules: { title: { required: true } },
};

describe('PostgreSQL store: tables a person can read', function () {
  this.timeout(60_000);
  const db = usePostgresStore('tables');

  const columns = async (table: string): Promise<string[]> =>
    (
      await db.sql.query<{ c: string }>(
        `SELECT column_name || ' ' || data_type || ' ' || is_nullable || ' ' || is_identity AS c FROM information_schema.columns WHERE table_name = $1 ORDER BY ordinal_position`,
        [table],
      )
    ).rows.map((r) => r.c);

  const indexes = async (table: string): Promise<string[]> =>
    (
      await db.sql.query<{ d: string }>(
        `SELECT indexdef AS d FROM pg_indexes WHERE tablename = $1 ORDER BY indexname`,
        [table],
      )
    ).rows.map((r) => r.d.replace(/ ON public\.\S+/, ''));

  it('one table per resource in snake case, a typed column per field, NOT NULL for required, an identity key', async () => {
    await db.store.collection(REVIEW);
    expect(await columns('book_review')).to.deep.equal([
      'id bigint NO YES',
      'title text NO NO',
      'rating double precision YES NO',
      'published_at timestamp with time zone YES NO',
      'day date YES NO',
      'approved boolean YES NO',
      'book text YES NO',
      'tags jsonb YES NO',
      'meta jsonb YES NO',
      '_apidsl:extra json YES NO',
    ]);
    expect(await indexes('book_review')).to.deep.equal([
      'CREATE UNIQUE INDEX book_review_pkey USING btree (id)',
      'CREATE INDEX book_review_published_at_idx USING btree (published_at NULLS FIRST, id)',
      'CREATE INDEX book_review_rating_idx USING btree (rating NULLS FIRST, id)',
      'CREATE INDEX book_review_tags_idx USING gin (tags jsonb_path_ops)',
      'CREATE UNIQUE INDEX book_review_title_key USING btree (title)',
    ]);
  });

  it('stores each value in its column, typed, and reads the item back as written', async () => {
    const reviews = await db.store.collection(REVIEW);
    const item = {
      title: 'Fine',
      rating: 4.5,
      publishedAt: '2024-05-06T07:08:09.123+00:00',
      day: '2024-05-06',
      approved: true,
      book: '/books/1',
      tags: ['a', 1],
      meta: { deep: [1, { x: null }] },
    };
    const stored = await reviews.insert(item);
    expect(stored).to.deep.equal({ id: 1, ...item });
    const row = (await db.sql.query(`SELECT *, published_at::text AS at, day::text AS day_text FROM book_review`))
      .rows[0] as Record<string, unknown>;
    expect(row).to.deep.include({
      id: '1',
      title: 'Fine',
      rating: 4.5,
      day_text: '2024-05-06',
      approved: true,
      book: '/books/1',
    });
    expect(row.at).to.equal('2024-05-06 07:08:09.123+00');
    expect(row.tags).to.deep.equal(['a', 1]);
    expect(row['_apidsl:extra']).to.equal(null);
    expect(await reviews.get(1)).to.deep.equal(stored);
  });

  it('keeps what the typed columns cannot hold exactly in the extra column: the item reads back the same', async () => {
    const reviews = await db.store.collection(REVIEW);
    const odd = { title: 'Odd', rating: 'high', publishedAt: '2024-05-06T07:08:09.000Z', day: null, note: 'kept' };
    await reviews.insert(odd);
    expect(await reviews.get(1)).to.deep.equal({ id: 1, ...odd });
    // The datetime's instant is in its column all the same: conditions and order read it.
    const found = await reviews.find({
      where: [{ op: 'gt', field: 'publishedAt', value: '2024-05-06T07:00:00+00:00' }],
    });
    expect(found.map((r) => r.title)).to.deep.equal(['Odd']);
    const row = (await db.sql.query(`SELECT rating, "_apidsl:extra" AS extra FROM book_review`)).rows[0] as Record<
      string,
      unknown
    >;
    expect(row.rating).to.equal(null);
    expect(row.extra).to.deep.equal({
      rating: 'high',
      publishedAt: '2024-05-06T07:08:09.000Z',
      day: null,
      note: 'kept',
    });
  });

  it('names the table after `table` when the spec gives one', async () => {
    await db.store.collection({ ...REVIEW, table: 'reviews' });
    expect(await columns('reviews')).to.have.length(10);
    expect(await columns('book_review')).to.deep.equal([]);
  });

  it('brings a stored table to a later layout: new columns and indexes, NOT NULL relaxed, stale indexes dropped', async () => {
    const reviews = await db.store.collection(REVIEW);
    await reviews.insert({ title: 'kept' });
    await db.store.collection({
      ...REVIEW,
      fields: { ...REVIEW.fields, pages: 'int' },
      indexes: [['pages']],
      unique: [],
      rules: {},
    });
    expect(await columns('book_review')).to.include.members(['title text YES NO', 'pages bigint YES NO']);
    expect(await indexes('book_review')).to.deep.equal([
      'CREATE INDEX book_review_pages_idx USING btree (pages NULLS FIRST, id)',
      'CREATE UNIQUE INDEX book_review_pkey USING btree (id)',
    ]);
    const reopened = await db.store.collection({ ...REVIEW, unique: [], rules: {} });
    expect(await reopened.insert({ title: 'kept' })).to.deep.include({ id: 2 });
  });

  it('reads an ordered page through an index, with no sort: by the key, and by an indexed field then the key', async () => {
    await db.store.collection(REVIEW);
    await db.sql.query(
      `INSERT INTO book_review (title, rating) SELECT 'Review ' || i, i % 100 FROM generate_series(1, 20000) AS i`,
    );
    await db.sql.query('ANALYZE book_review');
    const plan = async (sort: { field: string; direction: 'asc' | 'desc' }[], after?: unknown[]): Promise<string> => {
      const q = { sort, limit: 30, ...(after ? { after: { values: after } } : {}) };
      const { text, values } = compileFind(tableOf(REVIEW), q);
      const rows = (await db.sql.query({ text: `EXPLAIN ${text}`, values })).rows as { 'QUERY PLAN': string }[];
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    };
    for (const direction of ['asc', 'desc'] as const) {
      const byKey = await plan([{ field: 'id', direction }]);
      expect(byKey, byKey).to.match(/Index Scan( Backward)? using book_review_pkey/);
      expect(byKey, byKey).to.not.match(/Sort/);
      const deep = await plan([{ field: 'id', direction }], [direction === 'asc' ? 15000 : 5000]);
      expect(deep, deep).to.not.match(/Sort/);
      const byRating = await plan([
        { field: 'rating', direction },
        { field: 'id', direction },
      ]);
      expect(byRating, byRating).to.match(/using book_review_rating_idx/);
      expect(byRating, byRating).to.not.match(/Sort/);
    }
  });

  it('reads a deep cursor page and whether a row lies before it in one statement, both through the key', async () => {
    const reviews = await db.store.collection(REVIEW);
    await db.sql.query(`INSERT INTO book_review (title) SELECT 'Review ' || i FROM generate_series(1, 20000) AS i`);
    await db.sql.query('ANALYZE book_review');
    const sent: { text: string; values: unknown[] }[] = [];
    const query = pg.Pool.prototype.query;
    pg.Pool.prototype.query = function (this: pg.Pool, config: unknown, ...rest: unknown[]) {
      sent.push(config as { text: string; values: unknown[] });
      return (query as (...args: unknown[]) => unknown).call(this, config, ...rest);
    } as typeof query;
    let page: Awaited<ReturnType<NonNullable<typeof reviews.findAndProbe>>>;
    try {
      page = await reviews.findAndProbe!(
        { sort: [{ field: 'id', direction: 'asc' }], limit: 3, after: { values: [18000] } },
        { sort: [{ field: 'id', direction: 'desc' }], after: { values: [18000], inclusive: true } },
      );
    } finally {
      pg.Pool.prototype.query = query;
    }
    expect(page.items.map((r) => r.id)).to.deep.equal([18001, 18002, 18003]);
    expect(page.probed).to.equal(true);
    expect(sent).to.have.length(1);
    const rows = (await db.sql.query({ text: `EXPLAIN ${sent[0]!.text}`, values: sent[0]!.values })).rows;
    const plan = (rows as { 'QUERY PLAN': string }[]).map((r) => r['QUERY PLAN']).join('\n');
    expect(plan, plan).to.not.match(/Seq Scan|Sort/);
    expect(plan.match(/Index (Only )?Scan( Backward)? using book_review_pkey/g), plan).to.have.length(2);
  });
});
