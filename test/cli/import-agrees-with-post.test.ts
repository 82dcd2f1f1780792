/**
 * `apidsl import` and a POST are one road into writes (server/pipeline/import.ts): the same rows, POSTed to a
 * server on one store and imported into another, give the same stored items and the same refusals (a 400's
 * detail, a 422's property paths and messages), on both stores. The rows are drawn by fast-check from a table of
 * the write rules, one entry per property option of the catalogue: an option is either a rule with values that
 * keep it and values that break it, or says why it is no rule a body obeys (or how the import differs by design).
 * A new option of the catalogue fails the first test until it is classified here; a rule that only one road
 * applies makes the rows disagree.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONSTRAINTS } from '../../grammar/catalogue/index.js';
import { post, startServer, tempDir } from '../http/harness.js';
import { runCli } from '../support/cli.js';
import { freshDatabaseUri, mongoOrSkip } from '../support/mongodb.js';

/** A property left out of the row. */
const ABSENT = Symbol('absent');
type Value = unknown;

/** A write rule: the property that carries it, values that keep it, values that break it. */
interface Rule {
  property: string;
  valid: readonly Value[];
  invalid: readonly Value[];
}

/** The values the server sets, which an import keeps when a record gives them (docs/data.md) and a POST ignores. */
const RESTORED = ['createdAt', 'stamp'];
const TIME = '2001-02-03T04:05:06+00:00';

const WRITE_RULES: Record<string, Rule> = {
  required: { property: 'title', valid: ['A title'], invalid: [ABSENT, '', null] },
  nullable: { property: 'blurb', valid: ['b', ABSENT], invalid: [null] },
  readOnly: { property: 'rank', valid: [3, 'x', ABSENT], invalid: [] },
  writeOnly: { property: 'secret', valid: ['s', ABSENT], invalid: [] },
  default: { property: 'shelf', valid: [ABSENT, 'side'], invalid: [5] },
  onUpdate: { property: 'stamp', valid: [ABSENT, TIME], invalid: [] },
  minimum: { property: 'pages', valid: [2, 40, ABSENT], invalid: [0, 'ten'] },
  maximum: { property: 'pages', valid: [900], invalid: [902] },
  multipleOf: { property: 'pages', valid: [40], invalid: [3] },
  exclusiveMinimum: { property: 'weight', valid: [0.5, ABSENT], invalid: [0] },
  exclusiveMaximum: { property: 'weight', valid: [9.5], invalid: [10] },
  minLength: { property: 'code', valid: ['abc', ABSENT], invalid: ['a'] },
  maxLength: { property: 'code', valid: ['abcdef'], invalid: ['abcdefgh'] },
  pattern: { property: 'code', valid: ['xyz'], invalid: ['AB'] },
  format: { property: 'mail', valid: ['a@b.co', ABSENT], invalid: ['nope'] },
  enum: { property: 'genre', valid: ['novel', ABSENT], invalid: ['drama'] },
  minItems: { property: 'tags', valid: [['a'], ABSENT], invalid: [[]] },
  maxItems: { property: 'tags', valid: [['a', 'b']], invalid: [['a', 'b', 'c']] },
  uniqueItems: { property: 'tags', valid: [['b']], invalid: [['a', 'a']] },
  unique: { property: 'isbn', valid: ['i1', 'i2', 'i3', ABSENT], invalid: [] },
  assert: { property: 'score', valid: [1, ABSENT], invalid: [13] },
  // A relation's value: an IRI naming a stored item of its resource (not a catalogue option: every relation).
  relation: { property: 'author', valid: ['/authors/1', '/authors/2'], invalid: ['/authors/9', '/books/1', 5, ABSENT] },
  // An item a folder owns (`owned: true` on Folder.notes) is reached through its folder only: no book may name it.
  owned: { property: 'note', valid: ['/notes/1', ABSENT], invalid: ['/notes/2'] },
  // Server-set values (`default: now`): filled when absent; a given one a POST ignores and an import keeps.
  serverDefault: { property: 'createdAt', valid: [ABSENT, TIME], invalid: [] },
};

/** The property options that are no rule a POST body obeys, or that the import applies otherwise by design. */
const NOT_COMPARED: Record<string, string> = {
  identifier: 'an import keeps a record’s identifier where a POST assigns one (test/http/identifiers.test.ts)',
  groups: 'serialization groups: an import reads every property a POST could write (docs/data.md)',
  description: 'documentation only',
  maxDepth: 'output only (embedding)',
  security: 'an access rule: the administrator’s import evaluates none (docs/data.md)',
  securityPostDenormalize: 'an access rule: the administrator’s import evaluates none (docs/data.md)',
  throwOnAccessDenied: 'part of securityPostDenormalize, an access rule',
  onDelete: 'applies to deletes, which an import does not make',
  renamedFrom: 'the name a property had in an earlier version of the file, read by `apidsl diff` only (docs/diff.md)',
};

const API = `api "Agreement" { version: "1.0.0" }

resource Author {
  properties {
    id: int { identifier: true }
    name: string { required: true }
  }
  operations { GetCollection, Post, Get }
}

resource Note {
  properties {
    id: int { identifier: true }
    text: string
  }
  operations { Post, Get }
}

resource Folder {
  properties {
    id: int { identifier: true }
    notes: Note[] { owned: true }
  }
  operations { Post, Get }
}

resource Book {
  properties {
    id: int { identifier: true }
    title: string { required: true }
    blurb: string { nullable: false }
    rank: int { readOnly: true }
    secret: string { writeOnly: true }
    shelf: string { default: "main" }
    createdAt: datetime { default: now }
    stamp: datetime { onUpdate: now }
    pages: int { minimum: 2, maximum: 900, multipleOf: 2 }
    weight: number { exclusiveMinimum: 0, exclusiveMaximum: 10 }
    code: string { minLength: 2, maxLength: 6, pattern: "^[a-z]+$" }
    mail: string { format: "email" }
    genre: string { enum: ["novel", "poetry"] }
    tags: string[] { minItems: 1, maxItems: 2, uniqueItems: true }
    isbn: string { unique: true }
    score: int { assert: { expression: "value != 13", message: "Unlucky." } }
    author: Author { required: true }
    note: Note
  }
  operations { GetCollection, Post, Get }
}
`;

type Row = Record<string, unknown>;

/** The other items both roads hold before the books, in order: note 1 free, note 2 owned by a folder. */
const RELATED: [string, Row][] = [
  ['/notes', { text: 'free' }],
  ['/notes', { text: 'filed' }],
  ['/folders', { notes: ['/notes/2'] }],
];

/** The choices of each property: its rules' values, the valid ones four times as likely. */
function rowArbitrary(): fc.Arbitrary<Row> {
  const byProperty = new Map<string, { valid: Value[]; invalid: Value[] }>();
  for (const rule of Object.values(WRITE_RULES)) {
    const choices = byProperty.get(rule.property) ?? { valid: [], invalid: [] };
    choices.valid.push(...rule.valid);
    choices.invalid.push(...rule.invalid);
    byProperty.set(rule.property, choices);
  }
  const fields = Object.fromEntries(
    [...byProperty].map(([name, { valid, invalid }]) => [
      name,
      invalid.length === 0
        ? fc.constantFrom(...valid)
        : fc.oneof(
            { weight: 4, arbitrary: fc.constantFrom(...valid) },
            { weight: 1, arbitrary: fc.constantFrom(...invalid) },
          ),
    ]),
  );
  return fc.record(fields).map((row) => Object.fromEntries(Object.entries(row).filter(([, v]) => v !== ABSENT)));
}

/** A valid row, then one row per value that breaks a rule (every other property valid). */
function everyBrokenRule(): Row[] {
  const base: Row = { title: 'Base', author: '/authors/1' };
  return [
    base,
    ...Object.values(WRITE_RULES).flatMap((rule) =>
      rule.invalid.map((value) => {
        const row = { ...base };
        if (value === ABSENT) delete row[rule.property];
        else row[rule.property] = value;
        return row;
      }),
    ),
  ];
}

const ndjson = (rows: readonly unknown[]): string => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';

/** A stored item as compared: the values the server set at the time of the write are not compared. */
function comparable(item: Row, row: Row, road: 'post' | 'import'): Row {
  const out = { ...item };
  for (const name of RESTORED) {
    expect(out[name], name).to.match(/^\d{4}-\d{2}-\d{2}T/);
    // The record's own value is the import's (it restores data); a POST ignores it and sets its own.
    if (road === 'import' && row[name] !== undefined) expect(out[name]).to.equal(row[name]);
    out[name] = '<set>';
  }
  return out;
}

for (const storeKind of ['sqlite', 'mongodb'] as const) {
  describe(`CLI: import and POST agree on every write rule (${storeKind})`, function () {
    this.timeout(600_000);
    let dir: string;
    let freshStore: () => Promise<string[]>;

    before(async function () {
      if (storeKind === 'mongodb') await mongoOrSkip(this);
    });

    beforeEach(() => {
      dir = tempDir('apidsl-agree-');
      writeFileSync(join(dir, 'shelf.api'), API);
      let n = 0;
      freshStore = async () =>
        storeKind === 'mongodb' ? ['--db', await freshDatabaseUri('agree')] : ['--data', join(dir, `store-${++n}`)];
    });

    it('classifies every property option of the catalogue: a write rule here, or why it is none', () => {
      const classified = [...Object.keys(WRITE_RULES), ...Object.keys(NOT_COMPARED)];
      for (const { name } of CONSTRAINTS) expect(classified, `property option ${name}`).to.include(name);
    });

    /** POSTs the rows to a server on one store, imports them into another, and compares the two. */
    async function compareRoads(rows: Row[]): Promise<void> {
      const api = join(dir, 'shelf.api');
      const [posted, imported] = [await freshStore(), await freshStore()];
      const authors = [{ name: 'Ann' }, { name: 'Bob' }];
      const refusals: (string | undefined)[] = [];
      const server = await startServer(api, posted);
      try {
        for (const author of authors) expect((await post(server.url, '/authors', author)).status).to.equal(201);
        for (const [path, body] of RELATED) expect((await post(server.url, path, body)).status).to.equal(201);
        for (const row of rows) {
          const answer = await post(server.url, '/books', row);
          const json = answer.json as { detail?: string; violations?: { propertyPath: string; message: string }[] };
          if (answer.status === 201) refusals.push(undefined);
          else {
            expect(answer.status, JSON.stringify(row)).to.be.oneOf([400, 422]);
            // A 422's detail is its violations, path and message, in order: the import's line holds them.
            if (answer.status === 422)
              expect(json.detail).to.equal(json.violations!.map((v) => `${v.propertyPath}: ${v.message}`).join('\n'));
            refusals.push(json.detail!.replaceAll('\n', '; '));
          }
        }
      } finally {
        await server.stop();
      }
      mkdirSync(join(dir, 'files'), { recursive: true });
      writeFileSync(join(dir, 'files', 'authors.ndjson'), ndjson(authors));
      writeFileSync(join(dir, 'files', 'books.ndjson'), ndjson(rows));
      const a = runCli(['import', api, 'Author', join(dir, 'files', 'authors.ndjson'), ...imported]);
      expect(a.status, a.stderr).to.equal(0);
      for (const [path, body] of RELATED) {
        const resource = path === '/notes' ? 'Note' : 'Folder';
        writeFileSync(join(dir, 'files', `${resource}.ndjson`), ndjson([body]));
        const n = runCli(['import', api, resource, join(dir, 'files', `${resource}.ndjson`), ...imported]);
        expect(n.status, n.stderr).to.equal(0);
      }
      const r = runCli(['import', api, 'Book', join(dir, 'files', 'books.ndjson'), ...imported]);
      const lines = new Map([...r.stderr.matchAll(/:line (\d+): (.*)$/gm)].map((m) => [Number(m[1]) - 1, m[2]]));
      rows.forEach((row, i) => expect(lines.get(i), `line ${i + 1}: ${JSON.stringify(row)}`).to.equal(refusals[i]));

      const storedRows = rows.filter((_, i) => refusals[i] === undefined);
      const exported = (store: string[]): Row[] => {
        const e = runCli(['export', api, 'Book', ...store]);
        expect(e.status, e.stderr).to.equal(0);
        return JSON.parse(e.stdout) as Row[];
      };
      const viaPost = exported(posted).map((item, k) => comparable(item, storedRows[k], 'post'));
      const viaImport = exported(imported).map((item, k) => comparable(item, storedRows[k], 'import'));
      expect(viaImport).to.deep.equal(viaPost);
      expect(viaImport).to.have.length(storedRows.length);
    }

    it('gives the same stored items and refusals for rows breaking each rule once, and for drawn rows', async () => {
      await compareRoads(everyBrokenRule());
      await fc.assert(
        fc.asyncProperty(fc.array(rowArbitrary(), { minLength: 10, maxLength: 30 }), (rows) => compareRoads(rows)),
        { numRuns: 2, endOnFailure: true },
      );
    });
  });
}
