/**
 * PostgreSQL keeps tables, indexes and sequences under one namespace: a resource's table (or a join table) named as
 * an index (of the file's tables or of the database), an index named as a table the database holds, or a table
 * named as one of the store's own (`_apidsl_…`), is refused in one line, naming both, before anything is made
 * (docs/postgresql.md, "Tables a person can read").
 */
import { expect } from 'chai';
import { loadApi } from '../../../server/load-api.js';
import { specsOf } from '../../../server/storage.js';
import type { CollectionSpec } from '../../../server/store/types.js';
import { usePostgresStore } from '../../support/postgres.js';
import { apiFolder, bookApi, migrate, refusal, statementsOf } from '../../support/schema-changes.js';

describe('PostgreSQL store: names tables and indexes share', function () {
  this.timeout(120_000);
  const write = apiFolder('apidsl-pg-names-');
  const db = usePostgresStore('names');

  it("refuses a table named as one of the store's own (_apidsl_), in one line, before anything runs", async () => {
    const file = write(
      'own.api',
      bookApi('    id: int { identifier: true }\n    title: string', '', 'Get').replace(
        'resource Book {',
        'resource Book {\n  stateOptions: { table: "_apidsl_messages" }',
      ),
    );
    let result: Awaited<ReturnType<typeof migrate>> | undefined;
    const ran = await statementsOf(async () => void (result = await migrate(file, db.url)));
    expect(result!.code).to.equal(1);
    expect(result!.err).to.equal(
      'apidsl migrate: PostgreSQL cannot keep the table of resource Book in "_apidsl_messages": names starting ' +
        "with _apidsl_ are the store's own tables; rename the property or the resource, or name the resource's " +
        'table (stateOptions: { table: "…" })\n',
    );
    expect(ran).to.deep.equal([]);
    const made = await db.sql.query(`SELECT to_regclass('_apidsl_messages') AS m, to_regclass('tag') AS t`);
    expect(made.rows).to.deep.equal([{ m: null, t: null }]);
  });

  const specsFrom = async (name: string, text: string): Promise<CollectionSpec[]> =>
    specsOf(await loadApi(write(name, text)));
  const relations = async (): Promise<string[]> =>
    (
      await db.sql.query<{ r: string }>(
        `SELECT relname AS r FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND relname NOT LIKE '\\_apidsl\\_%' ORDER BY 1`,
      )
    ).rows.map((r) => r.r);

  it("refuses a table named as an index of another resource's table, whichever opens first", async () => {
    // Book's filtered title has the index book_title_idx; the resource BookTitleIdx's table would be book_title_idx.
    const specs = await specsFrom(
      'index-clash.api',
      bookApi(
        '    id: int { identifier: true }\n    title: string',
        'filter byTitle: search { properties: { title: "exact" } }\n' +
          'resource BookTitleIdx {\n  properties { id: int { identifier: true }, note: string }\n  operations { Get }\n}\n',
        'GetCollection { filters: ["byTitle"] }, Get',
      ),
    );
    const named = (n: string): CollectionSpec => specs.find((s) => s.name === n)!;
    const clash = (first: string, second: string): string =>
      `PostgreSQL cannot name both ${first} and ${second} "book_title_idx": tables, indexes and sequences share one ` +
      'namespace; rename the property or the resource, or name the resource\'s table (stateOptions: { table: "…" })';
    const [table, index] = ['the table of resource BookTitleIdx', 'an index of the table of resource Book'];
    expect(await refusal(db.store.schemaPlan!(specs))).to.equal(clash(table, index));
    const inspected = db.store
      .inspect(named('Tag'))
      .then(() => db.store.inspect(named('Book')))
      .then(() => db.store.inspect(named('BookTitleIdx')));
    expect(await refusal(inspected)).to.equal(clash(index, table));
    expect(await relations()).to.deep.equal([]);
  });

  it("refuses a table named as PostgreSQL names a primary key's index or an integer key's sequence", async () => {
    const clash = async (resource: string, name: string, what: string): Promise<void> => {
      const extra = `resource ${resource} {\n  properties { code: string { identifier: true } }\n  operations { Get }\n}\n`;
      const specs = await specsFrom(`${name}.api`, bookApi('    id: int { identifier: true }\n    tags: Tag[]', extra));
      expect(await refusal(db.store.schemaPlan!(specs))).to.equal(
        `PostgreSQL cannot name both the table of resource ${resource} and ${what} "${name}": tables, indexes and ` +
          "sequences share one namespace; rename the property or the resource, or name the resource's table " +
          '(stateOptions: { table: "…" })',
      );
    };
    await clash('BookPkey', 'book_pkey', "the primary key's index of the table of resource Book");
    await clash('BookIdSeq', 'book_id_seq', 'the key sequence of the table of resource Book');
    await clash('BookTagsPkey', 'book_tags_pkey', "the primary key's index of the join table of Book.tags");
    expect(await relations()).to.deep.equal([]);
  });

  it('refuses a table named as an index the database holds, or an index named as a table it holds', async () => {
    await db.sql.query(
      `CREATE TABLE notes (x int); CREATE INDEX shelf ON notes (x); CREATE TABLE book_title_idx (y int)`,
    );
    const specs = await specsFrom(
      'held.api',
      bookApi(
        '    id: int { identifier: true }\n    title: string',
        'filter byTitle: search { properties: { title: "exact" } }\n' +
          'resource Shelf {\n  properties { id: int { identifier: true } }\n  operations { Get }\n}\n',
        'GetCollection { filters: ["byTitle"] }, Get',
      ),
    );
    const named = (n: string): CollectionSpec => specs.find((s) => s.name === n)!;
    const shelf =
      'PostgreSQL cannot keep the table of resource Shelf in "shelf": the database has an index of the table ' +
      '"notes" of that name (tables, indexes and sequences share one namespace); rename the property or the resource, or ' +
      'name the resource\'s table (stateOptions: { table: "…" })';
    expect(await refusal(db.store.inspect(named('Shelf')))).to.equal(shelf);
    expect(await refusal(db.store.collection(named('Shelf')))).to.equal(shelf);
    const index =
      'PostgreSQL cannot name an index of the table of resource Book "book_title_idx": the database has a table ' +
      'of that name (tables, indexes and sequences share one namespace); rename the property or the resource, or name the ' +
      'resource\'s table (stateOptions: { table: "…" })';
    expect(await refusal(db.store.schemaPlan!(specs.filter((s) => s.name !== 'Shelf')))).to.equal(index);
    expect(await refusal(db.store.collection(named('Book')))).to.equal(index);
    expect(await relations()).to.deep.equal(['book_title_idx', 'notes', 'shelf']);
  });
});
