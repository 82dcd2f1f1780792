/**
 * Unique values over stored data, on every store (docs/behaviour.md, "Unique values"): a new unique property or
 * list over items that repeat values refuses the start (exit 1, one line naming the values), nulls do not count;
 * once the data is fixed the index is made and enforced; a list no longer unique and declared again is checked
 * afresh. `apidsl import` refuses a repeating record with the POST's violation and imports the others.
 */
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../support/cli.js';
import { freshDatabaseUri, mongoOrSkip } from '../support/mongodb.js';
import { dropCreatedPostgresDatabases, freshPostgresUrl, postgresOrSkip } from '../support/postgres.js';
import { post, request, serveExpectingExit, startServer, tempDir } from './harness.js';

/** A Shop resource with these property lines after the identifier, and resource options. */
const shopApi = (properties: string, options = ''): string =>
  `api "Shops" { version: "1.0.0" }\nresource Shop {\n${options}\n  properties {\n    id: int { identifier: true }\n${properties}\n  }\n  operations { GetCollection, Post, Get, Delete }\n}\n`;

const PLAIN = '    name: string\n    city: string';
const UNIQUE_NAME = '    name: string { unique: true }\n    city: string';

for (const storeKind of ['sqlite', 'mongodb', 'postgres'] as const) {
  describe(`unique values over stored data (${storeKind})`, function () {
    this.timeout(90_000);
    let dir: string;
    let storeArgs: string[];
    const file = (): string => join(dir, 'shops.api');

    beforeEach(async function () {
      dir = tempDir('apidsl-unique-');
      if (storeKind === 'mongodb') {
        await mongoOrSkip(this);
        storeArgs = ['--db', await freshDatabaseUri('uniq')];
      } else if (storeKind === 'postgres') {
        await postgresOrSkip(this);
        storeArgs = ['--db', await freshPostgresUrl('uniq')];
      } else storeArgs = ['--data', join(dir, 'data')];
    });
    after(async () => {
      if (storeKind === 'postgres') await dropCreatedPostgresDatabases();
    });

    async function serving(text: string, body: (url: string) => Promise<void>): Promise<void> {
      writeFileSync(file(), text);
      const server = await startServer(file(), storeArgs);
      try {
        await body(server.url);
      } finally {
        await server.stop();
      }
    }

    async function refused(text: string): Promise<string> {
      writeFileSync(file(), text);
      const exited = await serveExpectingExit(file(), storeArgs);
      expect(exited.url, exited.output).to.equal(undefined);
      expect(exited.code, exited.output).to.equal(1);
      return exited.output;
    }

    const postAll = async (url: string, shops: Record<string, unknown>[]): Promise<void> => {
      for (const shop of shops) expect((await post(url, '/shops', shop)).status).to.equal(201);
    };

    it('refuses to start on stored items repeating a new unique value, naming it; starts once fixed', async () => {
      await serving(shopApi(PLAIN), (url) =>
        postAll(url, [{ name: 'Acme' }, { name: 'Acme' }, { name: 'Bolt' }, { city: 'Oslo' }, { city: 'Rome' }]),
      );
      const output = await refused(shopApi(UNIQUE_NAME));
      expect(output).to.contain(
        'Shop.name: now unique, but values repeat: "Acme": 1 stored item repeats the values of an earlier one',
      );
      expect(output).not.to.match(/at .*\.js:\d+/);
      await serving(shopApi(PLAIN), async (url) => {
        expect((await request(url, 'DELETE', '/shops/2')).status).to.equal(204);
      });
      await serving(shopApi(UNIQUE_NAME), async (url) => {
        expect((await post(url, '/shops', { name: 'Acme' })).status).to.equal(422);
        expect((await post(url, '/shops', { name: 'Corner' })).status).to.equal(201);
      });
    });

    it('refuses a new composite list over repeating pairs, naming them; a list dropped and declared again is checked afresh', async () => {
      const composite = shopApi(PLAIN, '  unique: [["name", "city"]]');
      await serving(shopApi(PLAIN), (url) =>
        postAll(url, [
          { name: 'Acme', city: 'Oslo' },
          { name: 'Acme', city: 'Rome' },
          { name: 'Acme' },
          { name: 'Acme' },
        ]),
      );
      await serving(composite, async (url) => {
        expect((await post(url, '/shops', { name: 'Acme', city: 'Oslo' })).status).to.equal(422);
      });
      // No longer unique: the pair may repeat; unique again, the repeat refuses the start.
      await serving(shopApi(PLAIN), (url) => postAll(url, [{ name: 'Acme', city: 'Oslo' }]));
      const output = await refused(composite);
      expect(output).to.contain('Shop.name,city: now unique, but values repeat: ("Acme", "Oslo")');
    });

    it('apidsl import refuses a record repeating a unique value with the violation and imports the others', async () => {
      writeFileSync(file(), shopApi(UNIQUE_NAME));
      const records = join(dir, 'shops.ndjson');
      const lines = [{ name: 'Acme' }, { name: 'Bolt' }, { name: 'Acme' }, {}, {}];
      writeFileSync(records, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
      const r = runCli(['import', file(), 'Shop', records, ...storeArgs]);
      expect(r.status, r.stderr).to.equal(1);
      expect(r.stderr).to.include(`${records}:line 3: name: This value is already used.`);
      expect(r.stderr).to.include('4 Shop items imported, 1 record refused.');
    });
  });
}
