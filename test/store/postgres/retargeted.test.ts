/**
 * A to-one relation pointed at a resource whose key has another type (Book.tag from Tag, keyed by a string, to
 * Label, keyed by an int): while no row holds a key, the old foreign key is dropped before the column is converted,
 * then the new one added, in Book's transaction, and `apidsl migrate` lists what runs; a row holding a key refuses
 * the change before anything runs (docs/postgresql.md, "Schema changes").
 */
import { expect } from 'chai';
import { loadApi } from '../../../server/load-api.js';
import { openCollections } from '../../../server/pipeline/open-runtime.js';
import { specsOf } from '../../../server/storage.js';
import { LayoutConflictError } from '../../../server/store/types.js';
import { refuseUnsafeChanges } from '../../../server/store/layout.js';
import { usePostgresStore } from '../../support/postgres.js';
import { apiFolder, bookApi, migrate, planned, statementsOf } from '../../support/schema-changes.js';

const LABEL = 'resource Label {\n  properties { id: int { identifier: true } }\n  operations { Post, Get }\n}\n';
const book = (target: string): string =>
  bookApi(`    id: int { identifier: true }\n    title: string\n    tag: ${target}`, LABEL);

describe('PostgreSQL store: a to-one relation pointed at a resource with another key type', function () {
  this.timeout(120_000);
  const write = apiFolder('apidsl-pg-retarget-');
  const db = usePostgresStore('retarget');

  beforeEach(async () => {
    const api = await loadApi(write('tag.api', book('Tag')));
    await openCollections(api, db.store);
    await db.sql.query(`INSERT INTO tag (code) VALUES ('sf'); INSERT INTO book (title) VALUES ('Dune')`);
  });

  /** The type of book.tag and the foreign keys on book. */
  async function column(): Promise<{ type: string; keys: string[] }> {
    const type = await db.sql.query(
      `SELECT data_type AS t FROM information_schema.columns WHERE table_name = 'book' AND column_name = 'tag'`,
    );
    const keys = await db.sql.query(
      `SELECT conname || ' ' || pg_get_constraintdef(oid) AS k FROM pg_constraint WHERE conrelid = 'book'::regclass AND contype = 'f'`,
    );
    return { type: type.rows[0].t as string, keys: keys.rows.map((r) => r.k as string) };
  }

  it('drops the old foreign key, converts the column and adds the new one when every value is NULL', async () => {
    const api = await loadApi(write('label.api', book('Label')));
    await refuseUnsafeChanges(db.store, specsOf(api)); // as serve opens the store
    const collections = await openCollections(api, db.store);
    expect(await column()).to.deep.equal({
      type: 'bigint',
      keys: ['book_tag_fkey FOREIGN KEY (tag) REFERENCES label(id) ON DELETE RESTRICT'],
    });
    await collections.get('Label')!.insert({ id: 4 });
    await collections.get('Book')!.insert({ id: 9, title: 'Emma', tag: '/labels/4' });
    expect(await collections.get('Book')!.get(9)).to.deep.include({ tag: '/labels/4' });
  });

  it('apidsl migrate lists exactly what it runs', async () => {
    const file = write('label.api', book('Label'));
    const dry = await migrate(file, db.url, true);
    expect(dry.code, dry.err).to.equal(0);
    const plan = planned(dry.out);
    const ran = await statementsOf(async () => expect((await migrate(file, db.url)).code).to.equal(0));
    expect(plan).to.deep.equal(ran);
    expect(plan.indexOf('ALTER TABLE "book" DROP CONSTRAINT "book_tag_fkey"')).to.be.within(
      0,
      plan.findIndex((s) => s.startsWith('ALTER TABLE "book" ALTER COLUMN "tag" TYPE bigint')),
    );
    expect((await column()).type).to.equal('bigint');
  });

  it('refuses before anything runs while a row holds a key of the old target', async () => {
    await db.sql.query(`UPDATE book SET tag = 'sf'`);
    const api = await loadApi(write('label.api', book('Label')));
    const opened = await refuseUnsafeChanges(db.store, specsOf(api))
      .then(() => openCollections(api, db.store))
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(opened).to.be.instanceOf(LayoutConflictError);
    expect((opened as Error).message).to.equal(
      'Book.tag: now a relation to Label, but 1 stored rows hold keys of the table tag (apidsl diff OLD.api ' +
        'NEW.api gives the step that turns them back into IRIs)',
    );
    expect(await column()).to.deep.equal({
      type: 'text',
      keys: ['book_tag_fkey FOREIGN KEY (tag) REFERENCES tag(code) ON DELETE RESTRICT'],
    });
  });
});
