/**
 * `apidsl migrate --dry-run` on PostgreSQL lists exactly the statements `apidsl migrate` then runs, each once, in
 * an order that runs: the fills of defaults first (a new required column added NULL allowed, filled, then made
 * NOT NULL; a list's join table made, then filled), then what opening the collections runs (docs/postgresql.md,
 * "Schema changes").
 */
import { expect } from 'chai';
import { usePostgresStore } from '../../support/postgres.js';
import { apiFolder, bookApi, migrate, planned, statementsOf } from '../../support/schema-changes.js';

describe('PostgreSQL store: apidsl migrate lists what it runs', function () {
  this.timeout(120_000);
  const write = apiFolder('apidsl-pg-plan-');
  const db = usePostgresStore('plan');
  it('lists the fills of a new required list and of a new required scalar as they run, then the rest', async () => {
    const before = write('v1.api', bookApi('    id: int { identifier: true }\n    title: string { required: true }'));
    expect((await migrate(before, db.url)).code).to.equal(0); // makes the tables
    await db.sql.query(`INSERT INTO tag (code) VALUES ('sf'); INSERT INTO book (title) VALUES ('Dune'), ('Emma')`);
    const after = write(
      'v2.api',
      bookApi(
        '    id: int { identifier: true }\n    title: string { required: true }\n' +
          '    tags: Tag[] { required: true, default: ["/tags/sf"] }\n' +
          '    isbn: string { required: true, default: "unknown" }\n    rating: number',
        'filter byRating: range { properties: ["rating"] }',
        'GetCollection { filters: ["byRating"] }, Post, Get',
      ),
    );
    const dry = await migrate(after, db.url, true);
    expect(dry.code, dry.err).to.equal(0);
    const plan = planned(dry.out);
    const ran = await statementsOf(async () => expect((await migrate(after, db.url)).code).to.equal(0));
    // Every statement that ran is listed, once, and nothing else.
    expect([...plan].sort()).to.deep.equal([...ran].sort());
    // The new required column: added NULL allowed, filled, then made NOT NULL.
    const isbn = plan.map((s, i) => [s, i] as const).filter(([s]) => s.includes('"isbn"'));
    expect(isbn.map(([s]) => s)).to.deep.equal([
      'ALTER TABLE "book" ADD COLUMN IF NOT EXISTS "isbn" text',
      `UPDATE "book" SET "isbn" = 'unknown', "_apidsl:extra" = CASE WHEN "_apidsl:extra" IS NULL THEN NULL ELSE nullif("_apidsl:extra"::jsonb - 'isbn', '{}')::json END WHERE "isbn" IS NULL`,
      'ALTER TABLE "book" ALTER COLUMN "isbn" SET NOT NULL',
    ]);
    // The join table is made, then filled, its member key checked at the fill.
    const tags = plan.filter((s) => s.includes('"book_tags"'));
    expect(tags[0]).to.match(/^CREATE TABLE "book_tags"/);
    expect(tags.at(-1)).to.match(/^WITH lacking AS .*INSERT INTO "book_tags"/);
    expect(plan).to.include('SET CONSTRAINTS "book_tags_tag_code_fkey" IMMEDIATE');
    const filled = await db.sql.query(`SELECT book_id::int, tag_code FROM book_tags ORDER BY book_id`);
    expect(filled.rows).to.deep.equal([
      { book_id: 1, tag_code: 'sf' },
      { book_id: 2, tag_code: 'sf' },
    ]);
  });
});
