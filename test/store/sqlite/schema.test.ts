/**
 * The SQLite schema (server/store/sqlite/schema.ts): tables, expression indexes, the rendered column,
 * the counts table and its triggers, and the names it refuses.
 */
import { expect } from 'chai';
import { countSchema, renderedColumnUpgrade, schemaStatements } from '../../../server/store/sqlite/schema.js';

describe('SQLite schema', () => {
  it('creates a keyed table and expression indexes ending with the key', () => {
    const statements = schemaStatements({
      name: 'Book',
      identifier: { field: 'id', type: 'string' },
      fields: { price: 'number', createdAt: 'datetime' },
      indexes: [['price'], ['createdAt', 'id'], ['id']],
    });
    expect(statements).to.deep.equal([
      'CREATE TABLE IF NOT EXISTS "Book" ("key" TEXT NOT NULL PRIMARY KEY, "doc" TEXT NOT NULL, "rendered" TEXT)',
      `CREATE INDEX IF NOT EXISTS "Book(price)" ON "Book" (json_extract("doc", '$."price"'), "key")`,
      `CREATE INDEX IF NOT EXISTS "Book(createdAt,id)" ON "Book" (json_extract("doc", '$."createdAt"'), "key")`,
    ]);
  });

  it('keys integer identifiers and identifier-less collections by the rowid', () => {
    const [table] = schemaStatements({ name: 'Log', fields: {}, indexes: [] });
    expect(table).to.equal(
      'CREATE TABLE IF NOT EXISTS "Log" ("key" INTEGER PRIMARY KEY, "doc" TEXT NOT NULL, "rendered" TEXT)',
    );
  });

  it('adds the rendered column to a table made before it', () => {
    const spec = { name: 'Log', fields: {}, indexes: [] };
    expect(renderedColumnUpgrade(spec, ['key', 'doc'])).to.equal('ALTER TABLE "Log" ADD COLUMN "rendered" TEXT');
    expect(renderedColumnUpgrade(spec, ['key', 'doc', 'rendered'])).to.equal(undefined);
  });

  it('rejects unsafe names and unknown index fields', () => {
    expect(() => schemaStatements({ name: 'a b', fields: {}, indexes: [] })).to.throw(TypeError);
    expect(() => schemaStatements({ name: 'A', fields: { "x'": 'string' }, indexes: [] })).to.throw(TypeError);
    expect(() => schemaStatements({ name: 'A', fields: {}, indexes: [['missing']] })).to.throw(
      TypeError,
      /unknown field/,
    );
  });
});

describe('SQLite counts schema', () => {
  it('keeps a row per collection with AFTER INSERT / AFTER DELETE triggers and seeds it from COUNT(*)', () => {
    const counts = countSchema({ name: 'Book', fields: {}, indexes: [] });
    expect(counts.table).to.equal(
      'CREATE TABLE IF NOT EXISTS "_apidsl_counts" ("collection" TEXT NOT NULL PRIMARY KEY, "n" INTEGER NOT NULL) WITHOUT ROWID',
    );
    expect(counts.triggerNames).to.deep.equal(['Book:count:insert', 'Book:count:delete']);
    expect(counts.triggers).to.deep.equal([
      `CREATE TRIGGER IF NOT EXISTS "Book:count:insert" AFTER INSERT ON "Book" BEGIN UPDATE "_apidsl_counts" SET "n" = "n" + 1 WHERE "collection" = 'Book'; END`,
      `CREATE TRIGGER IF NOT EXISTS "Book:count:delete" AFTER DELETE ON "Book" BEGIN UPDATE "_apidsl_counts" SET "n" = "n" - 1 WHERE "collection" = 'Book'; END`,
    ]);
    expect(counts.seed).to.equal(
      `INSERT OR REPLACE INTO "_apidsl_counts" ("collection", "n") SELECT 'Book', count(*) FROM "Book"`,
    );
  });

  it('reserves the _apidsl_ prefix, in any case, and rejects unsafe names', () => {
    expect(() => schemaStatements({ name: '_apidsl_counts', fields: {}, indexes: [] })).to.throw(TypeError, /reserved/);
    expect(() => schemaStatements({ name: '_APIDSL_x', fields: {}, indexes: [] })).to.throw(TypeError, /reserved/);
    expect(() => countSchema({ name: "a'b", fields: {}, indexes: [] })).to.throw(TypeError);
  });
});
