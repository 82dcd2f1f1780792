/**
 * Changing the `.api` file over existing data, on every store: `apidsl serve` applies the changes the stored
 * items fit and refuses to start (exit 1, a message naming the resource, the property and the number of items)
 * on those they do not; `apidsl migrate` lists and applies what can be applied. Never a 500 after a change.
 */
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../support/cli.js';
import { freshDatabaseUri, mongoOrSkip } from '../support/mongodb.js';
import { dropCreatedPostgresDatabases, freshPostgresUrl, postgresOrSkip } from '../support/postgres.js';
import { get, post, request, serveExpectingExit, startServer, tempDir } from './harness.js';

/** A Book resource with the given property lines (the identifier line included) and extra declarations. */
function bookApi(properties: string, extra = '', operations = 'GetCollection, Post, Get'): string {
  return `${extra}\nresource Book {\n  properties {\n${properties}\n  }\n  operations { ${operations} }\n}\n`;
}

const ID_INT = '    id: int { identifier: true }';
const ID_STRING = '    id: string { identifier: true }';
const TITLE = '    title: string { required: true }';

for (const storeKind of ['sqlite', 'mongodb', 'postgres'] as const) {
  describe(`schema evolution (${storeKind})`, function () {
    this.timeout(90_000);
    let dir: string;
    let storeArgs: string[];
    const file = (): string => join(dir, 'books.api');
    after(async () => {
      if (storeKind === 'postgres') await dropCreatedPostgresDatabases();
    });

    beforeEach(async function () {
      dir = tempDir('apidsl-evolution-');
      if (storeKind === 'mongodb') {
        await mongoOrSkip(this);
        storeArgs = ['--db', await freshDatabaseUri('evo')];
      } else if (storeKind === 'postgres') {
        await postgresOrSkip(this);
        storeArgs = ['--db', await freshPostgresUrl('evo')];
      } else storeArgs = ['--data', join(dir, 'data')];
    });

    /** Serves `text`, runs `body` against it, stops the server. */
    async function serving(text: string, body: (url: string) => Promise<void>): Promise<void> {
      writeFileSync(file(), text);
      const server = await startServer(file(), storeArgs);
      try {
        await body(server.url);
      } finally {
        await server.stop();
      }
    }

    async function seedBooks(properties: string, books: Record<string, unknown>[]): Promise<void> {
      await serving(bookApi(properties), async (url) => {
        for (const book of books) expect((await post(url, '/books', book)).status).to.equal(201);
      });
    }

    async function refused(text: string): Promise<string> {
      writeFileSync(file(), text);
      const exited = await serveExpectingExit(file(), storeArgs);
      expect(exited.url, exited.output).to.equal(undefined);
      expect(exited.code, exited.output).to.equal(1);
      return exited.output;
    }

    const migrate = (...args: string[]): ReturnType<typeof runCli> =>
      runCli(['migrate', file(), ...storeArgs, ...args]);

    it('refuses an identifier type change (int → string) on stored items, at start, with the way out', async () => {
      await seedBooks(`${ID_INT}\n${TITLE}`, [{ title: 'Dune' }, { title: 'Emma' }]);
      const output = await refused(bookApi(`${ID_STRING}\n${TITLE}`));
      expect(output).to.contain(
        'Book.id: identifier type int → string: 2 stored items have an identifier of another type',
      );
      expect(output).to.contain('apidsl migrate');
      expect(output).to.contain('--dry-run');
      expect(output).not.to.match(/at .*\.js:\d+/); // no stack trace

      const dry = migrate('--dry-run');
      expect(dry.status, dry.stderr).to.equal(1);
      expect(dry.stdout).to.match(/unsafe +Book\.id: identifier type int → string: 2 stored items/);
      const applied = migrate();
      expect(applied.status).to.equal(1);
      expect(applied.stderr).to.contain('nothing changed');

      // Nothing was changed: the original file serves the same items.
      await serving(bookApi(`${ID_INT}\n${TITLE}`), async (url) => {
        const page = (await get(url, '/books')).json as { totalItems: number };
        expect(page.totalItems).to.equal(2);
        expect((await post(url, '/books', { title: 'Ubik' })).status).to.equal(201);
      });
    });

    it('applies an identifier type change on an empty collection (writes work afterwards)', async () => {
      await seedBooks(`${ID_INT}\n${TITLE}`, []);
      await serving(bookApi(`${ID_STRING}\n${TITLE}`), async (url) => {
        const created = await post(url, '/books', { id: 'dune', title: 'Dune' });
        expect(created.status, created.text).to.equal(201);
        expect((await get(url, '/books/dune')).status).to.equal(200);
      });
    });

    it('applies a new property, a removed one (kept in the stored items), a new index and a constraint the items satisfy', async () => {
      await seedBooks(`${ID_INT}\n${TITLE}\n    pages: int { maximum: 1000 }`, [{ title: 'Dune', pages: 412 }]);
      const next = bookApi(
        `${ID_INT}\n${TITLE} \n    rating: number\n    notes: string { maxLength: 10 }`,
        'config { patch_formats: ["application/merge-patch+json"] }\nfilter byRating: range { properties: ["rating"] }',
        'GetCollection { filters: ["byRating"] }, Post, Get, Patch',
      );
      writeFileSync(file(), next);
      const dry = migrate('--dry-run');
      expect(dry.status, dry.stderr).to.equal(0);
      expect(dry.stdout).to.match(/safe +Book\.rating: new property \(number\)/);
      expect(dry.stdout).to.match(/safe +Book\.pages: removed \(values kept in the stored items\)/);
      expect(dry.stdout).to.match(/safe +Book\.\(rating\): new index/);
      await serving(next, async (url) => {
        const patched = await request(url, 'PATCH', '/books/1', {
          body: { rating: 4.5 },
          headers: { 'content-type': 'application/merge-patch+json' },
        });
        expect(patched.status, patched.text).to.equal(200);
        const found = (await get(url, '/books?rating[gt]=4')).json as {
          totalItems: number;
          member: { pages?: number }[];
        };
        expect(found.totalItems).to.equal(1);
        expect(found.member[0]!.pages).to.equal(undefined); // no longer a property
      });
      // Declared again: the value kept in the stored item is back.
      await serving(bookApi(`${ID_INT}\n${TITLE}\n    pages: int { maximum: 500 }`), async (url) => {
        expect(((await get(url, '/books/1')).json as { pages: number }).pages).to.equal(412);
      });
    });

    it('refuses a new required property that stored items lack; migrate fills its default', async () => {
      await seedBooks(`${ID_INT}\n${TITLE}`, [{ title: 'Dune' }, { title: 'Emma' }, { title: 'Ubik' }]);
      const withoutDefault = await refused(bookApi(`${ID_INT}\n${TITLE}\n    isbn: string { required: true }`));
      expect(withoutDefault).to.contain('Book.isbn: now required: 3 stored items lack it and it has no default');

      const withDefault = bookApi(`${ID_INT}\n${TITLE}\n    isbn: string { required: true, default: "unknown" }`);
      const output = await refused(withDefault);
      expect(output).to.contain(
        'Book.isbn: now required: 3 stored items lack it (apidsl migrate fills its default "unknown")',
      );
      const dry = migrate('--dry-run');
      expect(dry.status, dry.stderr).to.equal(0);
      expect(dry.stdout).to.match(/fill +Book\.isbn: now required: 3 stored items/);
      const applied = migrate();
      expect(applied.status, applied.stderr).to.equal(0);
      expect(applied.stdout).to.contain('filled Book.isbn with "unknown" in 3 stored items');
      await serving(withDefault, async (url) => {
        const page = (await get(url, '/books')).json as { member: { isbn: string }[] };
        expect(page.member.map((b) => b.isbn)).to.deep.equal(['unknown', 'unknown', 'unknown']);
      });
      expect(migrate().stdout).to.contain('nothing to change');
    });

    it('adds a to-many relation over stored items (absent on them); made required, migrate fills its default', async () => {
      const tag = 'resource Tag {\n  properties { code: string { identifier: true } }\n  operations { Post, Get }\n}';
      await serving(bookApi(`${ID_INT}\n${TITLE}`, tag), async (url) => {
        expect((await post(url, '/tags', { code: 'sf' })).status).to.equal(201);
        for (const title of ['Dune', 'Emma']) expect((await post(url, '/books', { title })).status).to.equal(201);
      });
      const listed = bookApi(`${ID_INT}\n${TITLE}\n    tags: Tag[]`, tag);
      writeFileSync(file(), listed);
      const dry = migrate('--dry-run');
      expect(dry.status, dry.stderr).to.equal(0);
      expect(dry.stdout).to.match(/safe +Book\.tags: new property \(array\)/);
      await serving(listed, async (url) => {
        expect((await get(url, '/books/1')).json).to.not.have.property('tags');
        const created = await post(url, '/books', { title: 'Ubik', tags: ['/tags/sf'] });
        expect(created.status, created.text).to.equal(201);
      });

      const required = bookApi(`${ID_INT}\n${TITLE}\n    tags: Tag[] { required: true, default: ["/tags/sf"] }`, tag);
      expect(await refused(required)).to.contain(
        'Book.tags: now required: 2 stored items lack it (apidsl migrate fills its default ["/tags/sf"])',
      );
      const plan = migrate('--dry-run');
      expect(plan.status, plan.stderr).to.equal(0);
      expect(plan.stdout).to.match(/fill +Book\.tags: now required: 2 stored items/);
      // PostgreSQL shows the statement that fills the join table.
      if (storeKind === 'postgres') expect(plan.stdout).to.match(/sql +WITH lacking .*INSERT INTO "book_tags"/);
      const applied = migrate();
      expect(applied.status, applied.stderr).to.equal(0);
      expect(applied.stdout).to.contain('filled Book.tags with ["/tags/sf"] in 2 stored items');
      await serving(required, async (url) => {
        const page = (await get(url, '/books')).json as { member: { tags: string[] }[] };
        expect(page.member.map((b) => b.tags)).to.deep.equal([['/tags/sf'], ['/tags/sf'], ['/tags/sf']]);
      });
      expect(migrate().stdout).to.contain('nothing to change');
    });

    it('refuses a type change the stored values do not fit, and applies one they fit', async () => {
      await seedBooks(`${ID_INT}\n${TITLE}\n    code: string\n    pages: int`, [
        { title: 'Dune', code: 'A1', pages: 412 },
        { title: 'Emma', code: '7', pages: 300 },
        { title: 'Ubik' },
      ]);
      const output = await refused(bookApi(`${ID_INT}\n${TITLE}\n    code: int\n    pages: int`));
      expect(output).to.contain('Book.code: type string → int: 2 stored items hold a value of another type');
      await serving(bookApi(`${ID_INT}\n${TITLE}\n    code: string\n    pages: number`), async (url) => {
        expect((await post(url, '/books', { title: 'Solaris', pages: 204.5 })).status).to.equal(201);
      });
    });

    it('refuses a constraint that stored items violate, counting them', async () => {
      await seedBooks(`${ID_INT}\n${TITLE}`, [
        { title: 'Dune' },
        { title: 'The Left Hand of Darkness' },
        { title: 'Middlemarch' },
      ]);
      const output = await refused(bookApi(`${ID_INT}\n    title: string { required: true, maxLength: 8 }`));
      expect(output).to.contain('Book.title: maxLength 8: 2 stored items violate it');
      const dry = migrate('--dry-run');
      expect(dry.status).to.equal(1);
      expect(dry.stdout).to.match(/unsafe +Book\.title: maxLength 8: 2 stored items/);
      // Satisfied by every item: applied.
      await serving(bookApi(`${ID_INT}\n    title: string { required: true, maxLength: 80 }`), async (url) => {
        expect((await get(url, '/books')).status).to.equal(200);
      });
    });
  });
}
