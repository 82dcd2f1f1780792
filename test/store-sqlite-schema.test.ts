import { expect } from 'chai';
import { schemaStatements } from '../server/store/sqlite-schema.js';

describe('SQLite schema', () => {
  it('creates a keyed table and expression indexes ending with the key', () => {
    const statements = schemaStatements({
      name: 'Book',
      identifier: { field: 'id', type: 'string' },
      fields: { price: 'number', createdAt: 'datetime' },
      indexes: [['price'], ['createdAt', 'id'], ['id']],
    });
    expect(statements).to.deep.equal([
      'CREATE TABLE IF NOT EXISTS "Book" ("key" TEXT NOT NULL PRIMARY KEY, "doc" TEXT NOT NULL)',
      `CREATE INDEX IF NOT EXISTS "Book(price)" ON "Book" (json_extract("doc", '$."price"'), "key")`,
      `CREATE INDEX IF NOT EXISTS "Book(createdAt,id)" ON "Book" (json_extract("doc", '$."createdAt"'), "key")`,
    ]);
  });

  it('keys integer identifiers and identifier-less collections by the rowid', () => {
    const [table] = schemaStatements({ name: 'Log', fields: {}, indexes: [] });
    expect(table).to.equal('CREATE TABLE IF NOT EXISTS "Log" ("key" INTEGER PRIMARY KEY, "doc" TEXT NOT NULL)');
  });

  it('rejects unsafe names and unknown index fields', () => {
    expect(() => schemaStatements({ name: 'a b', fields: {}, indexes: [] })).to.throw(TypeError);
    expect(() => schemaStatements({ name: 'A', fields: { "x'": 'string' }, indexes: [] })).to.throw(TypeError);
    expect(() => schemaStatements({ name: 'A', fields: {}, indexes: [['missing']] })).to.throw(TypeError, /unknown field/);
  });
});
