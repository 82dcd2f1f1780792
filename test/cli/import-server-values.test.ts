/**
 * `apidsl import` and the options of issue 28 (docs/data.md, docs/behaviour.md): values the server sets are the
 * records' when they give them (an import restores data) and filled when absent; a default computed from the user
 * refuses a record without one (an import has no user); `allow_extra_attributes: false` of the Post operation
 * refuses a record holding attributes the resource does not declare, while read-only ones (an export holds them)
 * are ignored as before. On both stores.
 */
import { expect } from 'chai';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../http/harness.js';
import { runCli, type CliResult } from '../support/cli.js';
import { freshDatabaseUri, mongoOrSkip } from '../support/mongodb.js';

const JOURNAL = `api "Journal" { version: "1.0.0" }

resource Entry {
  denormalizationContext: { allow_extra_attributes: false }
  properties {
    id: int { identifier: true }
    title: string { required: true }
    createdAt: datetime { default: now }
    updatedAt: datetime { onUpdate: now }
    day: date { default: now }
    rank: int { readOnly: true }
  }
  operations { GetCollection, Post, Get }
}

resource Owned {
  properties {
    id: int { identifier: true }
    owner: string { default: { expression: "user.identifier" } }
  }
  operations { GetCollection, Post, Get }
}
`;

const STORED_DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?\+00:00$/;
const ndjson = (records: unknown[]): string => records.map((r) => JSON.stringify(r)).join('\n') + '\n';

for (const storeKind of ['sqlite', 'mongodb'] as const) {
  describe(`CLI: import with values the server sets and strict bodies (${storeKind})`, function () {
    this.timeout(240_000);
    let dir: string;
    let storeArgs: string[];

    beforeEach(async function () {
      dir = join(tempDir('apidsl-import-values-'), 'journal');
      mkdirSync(dir);
      if (storeKind === 'mongodb') {
        await mongoOrSkip(this);
        storeArgs = ['--db', await freshDatabaseUri('impvalues')];
      } else storeArgs = ['--data', join(dir, 'data')];
      writeFileSync(join(dir, 'journal.api'), JOURNAL);
    });

    const importRecords = (resource: string, records: unknown[]): CliResult => {
      writeFileSync(join(dir, 'records.ndjson'), ndjson(records));
      return runCli(['import', join(dir, 'journal.api'), resource, join(dir, 'records.ndjson'), ...storeArgs]);
    };
    const exported = (resource: string): Record<string, unknown>[] => {
      const r = runCli(['export', join(dir, 'journal.api'), resource, ...storeArgs]);
      expect(r.status, r.stderr).to.equal(0);
      return JSON.parse(r.stdout) as Record<string, unknown>[];
    };
    const refusals = (r: CliResult): Map<number, string> =>
      new Map([...r.stderr.matchAll(/:line (\d+): (.*)$/gm)].map((m) => [Number(m[1]), m[2]]));

    it('keeps the values records give, fills absent ones, refuses extra attributes and values of the wrong type', () => {
      const r = importRecords('Entry', [
        {
          id: 1,
          title: 'restored',
          createdAt: '2001-02-03T04:05:06Z',
          updatedAt: '2002-02-03T04:05:06+00:00',
          day: '2001-02-03',
          rank: 4,
        },
        { id: 2, title: 'filled' },
        { id: 3, title: 'extra', colour: 'red' },
        { id: 4, title: 'wrong', createdAt: 'yesterday' },
      ]);
      expect(r.status, r.stderr).to.equal(1);
      expect(r.stderr).to.include('2 Entry items imported, 2 records refused.');
      expect([...refusals(r)]).to.deep.equal([
        [3, 'Extra attributes are not allowed ("colour" is unknown).'],
        [4, 'The value of "createdAt" does not fit its type datetime.'],
      ]);
      const [restored, filled] = exported('Entry');
      // The read-only rank is ignored as a POST ignores it; the server's values are the record's.
      expect(restored).to.deep.equal({
        id: 1,
        title: 'restored',
        createdAt: '2001-02-03T04:05:06+00:00',
        updatedAt: '2002-02-03T04:05:06+00:00',
        day: '2001-02-03',
      });
      expect(filled.createdAt).to.match(STORED_DATETIME);
      expect(filled.updatedAt).to.equal(filled.createdAt);
      expect(filled.day).to.equal((filled.createdAt as string).slice(0, 10));
    });

    it('refuses a record without the value of a default computed from the user: an import has none', () => {
      const r = importRecords('Owned', [{ id: 1, owner: 'ann' }, { id: 2 }]);
      expect(r.status, r.stderr).to.equal(1);
      expect([...refusals(r)]).to.deep.equal([[2, 'The server could not set "owner" for this request.']]);
      expect(exported('Owned')).to.deep.equal([{ id: 1, owner: 'ann' }]);
    });
  });
}
