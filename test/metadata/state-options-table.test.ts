/**
 * `stateOptions: { table: "…" }` names the table a relational store keeps the resource in (the PostgreSQL store:
 * test/store/postgres/tables.test.ts shows the table made under that name); without it the store names it itself.
 */
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadApi } from '../../server/load-api.js';

describe('metadata: stateOptions.table reaches the storage spec', () => {
  it('gives the table of a resource that names one, and none to the others', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'apidsl-table-')), 'shop.api');
    writeFileSync(
      file,
      [
        'resource Book {',
        '  stateOptions: { table: "library_books" }',
        '  properties { id: int { identifier: true }, title: string }',
        '  operations { GetCollection {} }',
        '}',
        'resource Shelf {',
        '  properties { id: int { identifier: true } }',
        '  operations { GetCollection {} }',
        '}',
        '',
      ].join('\n'),
    );
    const api = await loadApi(file);
    expect(api.resource('Book')!.storage.table).to.equal('library_books');
    expect(api.resource('Shelf')!.storage).to.not.have.property('table');
  });
});
