/**
 * `apidsl import` is a POST per record, on both stores: a relation that names no item is refused with the
 * 400 text a POST of the same body answers (compared with a real POST), a malformed CSV row is a refused
 * record at the line it starts on while the import goes on, the Post operation's validation groups apply,
 * and the command printed to resume a stopped import works as printed (run through a shell).
 */
import { expect } from 'chai';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { post, startServer, tempDir } from '../http/harness.js';
import { runCli, type CliResult } from '../support/cli.js';
import {
  freshDatabaseUri,
  type LocalServer,
  mongoOrSkip,
  ownLocalServerOrSkip,
  startLocalServer,
  withDatabase,
} from '../support/mongodb.js';
import { fromRoot } from '../support/paths.js';

const CONFERENCE = `api "Conference" { version: "1.0.0" }

resource Speaker {
  properties {
    id: int { identifier: true }
    name: string { required: true }
  }
  operations { GetCollection, Post, Get }
}

resource Talk {
  properties {
    id: int { identifier: true }
    title: string { required: true, maxLength: 20 }
    speaker: Speaker { required: true }
    cospeakers: Speaker[]
    follows: Talk
  }
  operations { GetCollection, Post, Get }
}
`;

/** Shelves whose item route holds their room: a box's shelf IRI must name the room the shelf is in. */
const SHELVES = `api "Shelves" { version: "1.0.0" }

resource Shelf {
  properties {
    id: int { identifier: true }
    room: string { required: true }
  }
  operations { GetCollection, Post, Get { uriTemplate: "/rooms/{room}/shelves/{id}" } }
}

resource Box {
  properties {
    id: int { identifier: true }
    shelf: Shelf
  }
  operations { GetCollection, Post, Get }
}
`;

const GROUPS = `api "Groups" { version: "1.0.0" }

resource Note {
  properties {
    id: int { identifier: true }
    title: string { maxLength: { value: 5, groups: ["create"] } }
  }
  operations { GetCollection, Post { validationContext: { groups: ["create"] } } }
}

resource Loose {
  properties {
    id: int { identifier: true }
    title: string { required: true }
  }
  operations { GetCollection, Post { validate: false } }
}

resource Plain {
  properties {
    id: int { identifier: true }
    title: string { required: true, maxLength: { value: 5, groups: ["create"] } }
  }
  operations { GetCollection }
}
`;

const ndjson = (records: unknown[]): string => records.map((r) => JSON.stringify(r)).join('\n') + '\n';

for (const storeKind of ['sqlite', 'mongodb'] as const) {
  describe(`CLI: import, a POST per record (${storeKind})`, function () {
    this.timeout(240_000);
    let dir: string;
    let storeArgs: string[];

    beforeEach(async function () {
      // A directory name the shell must quote: the printed resume command is run through one.
      dir = join(tempDir('apidsl-import-'), "it's here");
      mkdirSync(dir);
      if (storeKind === 'mongodb') {
        await mongoOrSkip(this);
        storeArgs = ['--db', await freshDatabaseUri('imp')];
      } else storeArgs = ['--data', join(dir, 'data store')];
      writeFileSync(join(dir, 'conf.api'), CONFERENCE);
    });

    const apiFile = (): string => join(dir, 'conf.api');
    /** Writes `text` to `name` in the project and imports it into `resource`. */
    function importText(resource: string, name: string, text: string, ...args: string[]): CliResult {
      writeFileSync(join(dir, name), text);
      return runCli(['import', apiFile(), resource, join(dir, name), ...storeArgs, ...args]);
    }
    function exported(resource: string): Record<string, unknown>[] {
      const r = runCli(['export', apiFile(), resource, ...storeArgs]);
      expect(r.status, r.stderr).to.equal(0);
      return JSON.parse(r.stdout) as Record<string, unknown>[];
    }
    /** Imports `records` as NDJSON into `resource`, every one of them accepted. */
    function importAll(resource: string, records: unknown[]): void {
      const r = importText(resource, `${resource}.ndjson`, ndjson(records));
      expect(r.status, r.stderr).to.equal(0);
    }
    const importSpeakers = (): void =>
      importAll('Speaker', [
        { id: 1, name: 'Ada' },
        { id: 2, name: 'Bob' },
      ]);

    it('refuses a record whose relation names no item with the text a POST of it answers, by line, and stores the others', async () => {
      importSpeakers();
      const talks = [
        { title: 'stored', speaker: '/speakers/1' },
        { title: 'missing', speaker: '/speakers/9' },
        { title: 'wrong resource', speaker: '/talks/1' },
        { title: 'malformed', speaker: '/speakers/abc' },
        { title: 'in an array', speaker: '/speakers/2', cospeakers: ['/speakers/1', '/speakers/7'] },
        { title: 'as a URL', speaker: 'http://example.com/speakers/2', cospeakers: ['/speakers/1'] },
        { title: 'not a string', speaker: 5 },
        { title: 'relation before constraints', speaker: '/speakers/8' },
        { title: 'stored but far too long', speaker: '/speakers/1' },
      ];
      const file = join(dir, 'talks.ndjson');
      const r = importText('Talk', 'talks.ndjson', ndjson(talks));
      expect(r.status, r.stderr).to.equal(1);
      expect(r.stderr).to.include('2 Talk items imported, 7 records refused.');
      expect(exported('Talk')).to.deep.equal([
        { id: 1, title: 'stored', speaker: '/speakers/1' },
        { id: 2, title: 'as a URL', speaker: '/speakers/2', cospeakers: ['/speakers/1'] },
      ]);
      const reported = new Map(
        [...r.stderr.matchAll(/^(.*):line (\d+): (.*)$/gm)].map((m) => {
          expect(m[1]).to.equal(file);
          return [Number(m[2]), m[3]];
        }),
      );
      expect([...reported.keys()]).to.deep.equal([2, 3, 4, 5, 7, 8, 9]);
      expect(reported.get(2)).to.equal('Item not found for "/speakers/9".');
      expect(reported.get(5)).to.equal('Item not found for "/speakers/7".');

      // The same bodies POSTed to the service on the same store: the same refusals, word for word.
      const server = await startServer(apiFile(), storeArgs);
      try {
        for (const [line, message] of reported) {
          const answer = await post(server.url, '/talks', talks[line - 1]);
          expect(answer.status, `line ${line}`).to.be.oneOf([400, 422]);
          expect(message, `line ${line}`).to.equal((answer.json as { detail: string }).detail);
        }
      } finally {
        await server.stop();
      }

      const array = importText('Talk', 'talks.json', JSON.stringify([talks[0], talks[1]]));
      expect(array.status).to.equal(1);
      expect(array.stderr).to.include(`${join(dir, 'talks.json')}:record 2: Item not found for "/speakers/9".`);
    });

    it('a record may name an item stored before it, earlier in the file and in the same batch too, never one after it', () => {
      importSpeakers();
      const talks = ndjson([
        { id: 1, title: 'a', speaker: '/speakers/1' },
        { id: 2, title: 'b', speaker: '/speakers/1', follows: '/talks/1' },
        { id: 3, title: 'c', speaker: '/speakers/1', follows: '/talks/4' },
        { id: 4, title: 'd', speaker: '/speakers/1', follows: '/talks/2' },
        { title: 'e', speaker: '/speakers/1', follows: '/talks/5' },
        { id: 6, title: 'f', speaker: '/speakers/1', follows: '/talks/3' },
        { id: 7, title: 'g', speaker: '/speakers/2', cospeakers: ['/speakers/1'], follows: '/talks/6' },
      ]);
      for (const batchSize of ['1', '2', '1000']) {
        const r = importText('Talk', 'chain.ndjson', talks, '--batch-size', batchSize);
        expect(r.status, r.stderr).to.equal(1);
        expect(r.stderr).to.include(':line 3: Item not found for "/talks/4".');
        expect(r.stderr).to.include(':line 5: Item not found for "/talks/5".');
        expect(r.stderr).to.include(':line 6: Item not found for "/talks/3".');
        expect(r.stderr).to.include(':line 7: Item not found for "/talks/6".');
        expect(r.stderr, batchSize).to.include('3 Talk items imported, 4 records refused.');
        expect(exported('Talk').map((t) => t.id)).to.deep.equal([1, 2, 4]);
        const reset = runCli(['reset', apiFile(), ...storeArgs, '--yes']);
        expect(reset.status, reset.stderr).to.equal(0);
        importSpeakers();
      }
    });

    it('a relation to an item whose route holds other variables names it only with the values it holds', () => {
      writeFileSync(apiFile(), SHELVES);
      importAll('Shelf', [
        { id: 1, room: 'a' },
        { id: 2, room: 'b' },
      ]);
      const boxes = ndjson([
        { shelf: '/rooms/a/shelves/1' },
        { shelf: '/rooms/b/shelves/1' },
        { shelf: '/rooms/b/shelves/2' },
        { shelf: '/shelves/1' },
      ]);
      const r = importText('Box', 'boxes.ndjson', boxes);
      expect(r.stderr).to.include(':line 2: Item not found for "/rooms/b/shelves/1".');
      expect(r.stderr).to.include(':line 4: Invalid IRI "/shelves/1".');
      expect(r.stderr).to.include('2 Box items imported, 2 records refused.');
      expect(exported('Box').map((b) => b.shelf)).to.deep.equal(['/rooms/a/shelves/1', '/rooms/b/shelves/2']);
    });

    it('a malformed CSV row is a refused record at the line it starts on; the rows before and after it are stored', () => {
      importSpeakers();
      const rows = [
        'id,title,speaker',
        '1,ok,/speakers/1',
        '2,too few',
        '3,"two\nlines",/speakers/1',
        '4,a,/speakers/1,extra',
        '',
        '5,"Call "Bob" now",/speakers/1',
        '6,b"c,/speakers/1',
        '7,fine,/speakers/1',
        '8,"never closed,/speakers/1',
        '9,swallowed,/speakers/1',
      ];
      for (const eol of ['\n', '\r\n']) {
        const text = rows.join(eol).replace('two\nlines', `two${eol}lines`) + eol;
        const r = importText('Talk', 'talks.csv', text);
        const file = join(dir, 'talks.csv');
        expect(r.status, r.stderr).to.equal(1);
        expect(r.stderr).to.include(`${file}:line 3: this row has 2 cells, the header row 3 (id, title, speaker).`);
        expect(r.stderr).to.include(`${file}:line 6: this row has 4 cells, the header row 3 (id, title, speaker).`);
        expect(r.stderr).to.include(`${file}:line 8: a quoted cell's closing quote is followed by "B"`);
        expect(r.stderr).to.include(`${file}:line 9: a quote inside the unquoted cell "title"`);
        expect(r.stderr).to.include(`${file}:line 11: a quoted cell is not closed`);
        expect(r.stderr).to.include('3 Talk items imported, 5 records refused.');
        expect(exported('Talk')).to.deep.equal([
          { id: 1, title: 'ok', speaker: '/speakers/1' },
          { id: 3, title: `two${eol}lines`, speaker: '/speakers/1' },
          { id: 7, title: 'fine', speaker: '/speakers/1' },
        ]);
        const reset = runCli(['reset', apiFile(), ...storeArgs, '--yes']);
        expect(reset.status, reset.stderr).to.equal(0);
        importSpeakers();
      }
    });

    it("checks the constraints of the Post operation's validation groups, none where it says validate: false", async () => {
      writeFileSync(apiFile(), GROUPS);
      const note = importText('Note', 'notes.ndjson', ndjson([{ title: 'short' }, { title: 'too long' }]));
      expect(note.status).to.equal(1);
      expect(note.stderr).to.include(':line 2: title: This value is too long.');
      const loose = importText('Loose', 'loose.ndjson', ndjson([{}]));
      expect(loose.status, loose.stderr).to.equal(0);
      // Without a Post operation, the Default group: the "create" constraint does not apply, required does.
      const plain = importText('Plain', 'plain.ndjson', ndjson([{ title: 'too long' }, {}]));
      expect(plain.status).to.equal(1);
      expect(plain.stderr).to.include(':line 2: title: This value should not be blank.');
      expect(plain.stderr).to.include('1 Plain item imported, 1 record refused.');
      const server = await startServer(apiFile(), storeArgs);
      try {
        expect((await post(server.url, '/notes', { title: 'too long' })).status).to.equal(422);
        expect((await post(server.url, '/looses', {})).status).to.equal(201);
      } finally {
        await server.stop();
      }
    });

    it('an interrupted import prints the command that finishes it on the same store, which works as printed', async () => {
      importSpeakers();
      // Enough rows that the import is still running when the SIGINT comes, just after row 1,000 (the store takes
      // some thousands of rows a second): most of the test's time is the resumed import of the rest.
      const total = storeKind === 'sqlite' ? 30_000 : 4_000;
      const file = join(dir, 'many talks.csv');
      const valid = writeTalksCsv(file, total);
      const { code, stderr, command, done } = await importStoppedMidway(
        ['import', apiFile(), 'Talk', file, ...storeArgs, '--batch-size', '300'],
        (child) => void child.kill('SIGINT'),
      );
      expect(code, stderr).to.equal(1);
      expect(stderr).to.include('Interrupted:');
      expect(command).to.include(storeArgs[0]).and.include('--batch-size 300');
      expect(done).to.be.within(1_000, total - 1);

      const rest = runPrinted(command);
      const after = Array.from({ length: total - done }, (_, k) => done + 1 + k);
      const refusedAfter = after.filter(malformedRow).length;
      expect(rest.status, rest.stderr).to.equal(refusedAfter > 0 ? 1 : 0);
      expect(rest.stderr).to.include(
        `${after.length - refusedAfter} Talk items imported, ${refusedAfter} record${refusedAfter === 1 ? '' : 's'} refused.`,
      );
      expect(storedTalkIds(apiFile(), storeArgs)).to.deep.equal(valid);
    });

    it('a broken JSON array keeps the records before the break and prints the command to go on once it is corrected', () => {
      importSpeakers();
      const talk = (i: number): string => JSON.stringify({ id: i, title: `t${i}`, speaker: '/speakers/1' });
      const file = join(dir, 'talks.json');
      const r = importText(
        'Talk',
        'talks.json',
        `[${talk(1)}, ${talk(2)}, ${talk(3)}, {"id": 4, "title": `,
        '--batch-size',
        '2',
      );
      expect(r.status).to.equal(1);
      expect(r.stderr).to.include('not a JSON array (after record 3)');
      expect(exported('Talk').map((t) => t.id)).to.deep.equal([1, 2, 3]);
      const printed = /correct the file, then go on with: (apidsl import .*)$/m.exec(r.stderr);
      expect(printed, r.stderr).to.not.equal(null);
      expect(printed![1]).to.match(/--skip 3$/);
      writeFileSync(file, `[${talk(1)}, ${talk(2)}, ${talk(3)}, ${talk(4)}]`);
      const rest = runPrinted(printed![1]);
      expect(rest.status, rest.stderr).to.equal(0);
      expect(rest.stderr).to.include('1 Talk item imported, 0 records refused.');
      expect(exported('Talk').map((t) => t.id)).to.deep.equal([1, 2, 3, 4]);
    });
  });
}

/** Every 1,000th row of a talks file is malformed (too few cells): refused, and counted by --skip like the others. */
const malformedRow = (i: number): boolean => i % 1_000 === 0;

/** Writes a CSV of `total` talks of speaker 1, the malformedRow ones too short; returns the valid rows' identifiers. */
function writeTalksCsv(file: string, total: number): number[] {
  const lines = ['id,title,speaker'];
  for (let i = 1; i <= total; i++) lines.push(malformedRow(i) ? `${i},short row` : `${i},talk ${i},/speakers/1`);
  writeFileSync(file, lines.join('\n'));
  return Array.from({ length: total }, (_, k) => k + 1).filter((i) => !malformedRow(i));
}

/**
 * Runs `apidsl ARGS` and calls `stop` once it has printed the refusal of row 1,000 (line 1001, printed
 * while its batch is written); returns its exit code, its stderr, and the resume command it printed with
 * that command's --skip.
 */
async function importStoppedMidway(
  args: string[],
  stop: (child: ChildProcess) => Promise<void> | void,
): Promise<{ code: number | null; stderr: string; command: string; done: number }> {
  const child = spawn(process.execPath, [fromRoot('bin/apidsl.js'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  for (let waited = 0; !stderr.includes('line 1001:') && waited < 60_000; waited += 20) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await stop(child);
  const code = await exited;
  const printed = /to go on: (apidsl import .*)$/m.exec(stderr);
  expect(printed, stderr).to.not.equal(null);
  return { code, stderr, command: printed![1], done: Number(/--skip (\d+)$/.exec(printed![1])![1]) };
}

/** The identifiers of the stored talks, read through `apidsl export --out` (too many for a pipe). */
function storedTalkIds(api: string, storeArgs: string[]): number[] {
  const out = join(tempDir('apidsl-export-'), 'talks.ndjson');
  const r = runCli(['export', api, 'Talk', ...storeArgs, '--out', out]);
  expect(r.status, r.stderr).to.equal(0);
  return readFileSync(out, 'utf8')
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { id: number }).id);
}

/**
 * Runs a printed command line as a user pastes it: by a POSIX shell, with an `apidsl` on the PATH that
 * runs the built command.
 */
function runPrinted(command: string): CliResult {
  const bin = tempDir('apidsl-bin-');
  writeFileSync(join(bin, 'apidsl'), `#!/bin/sh\nexec "${process.execPath}" "${fromRoot('bin/apidsl.js')}" "$@"\n`);
  chmodSync(join(bin, 'apidsl'), 0o755);
  const r = spawnSync('/bin/sh', ['-c', command], {
    encoding: 'utf8',
    env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('CLI: import stopped by a store error (MongoDB)', function () {
  this.timeout(240_000);
  let mongo: LocalServer | undefined;
  after(async () => {
    await mongo?.stop();
  });

  it('prints the command that goes on from the first record not written, which works as printed once the store is back', async function () {
    mongo = await ownLocalServerOrSkip(this, 'import outage');
    const dir = tempDir('apidsl-import-');
    const api = join(dir, 'conf.api');
    writeFileSync(api, CONFERENCE);
    const storeArgs = ['--db', withDatabase(mongo.uri, 'import_outage')];
    writeFileSync(join(dir, 'speakers.ndjson'), ndjson([{ id: 1, name: 'Ada' }]));
    expect(runCli(['import', api, 'Speaker', join(dir, 'speakers.ndjson'), ...storeArgs]).status).to.equal(0);
    const total = 3_000;
    const file = join(dir, 'talks.csv');
    const valid = writeTalksCsv(file, total);
    const server = mongo;
    const { code, stderr, command, done } = await importStoppedMidway(
      ['import', api, 'Talk', file, ...storeArgs, '--batch-size', '250'],
      () => server.stop(),
    );
    expect(code, stderr).to.equal(1);
    expect(command).to.include(`--db ${storeArgs[1]}`);
    expect(done).to.be.within(1_000, total - 1);

    mongo = await startLocalServer({
      kind: mongo.kind === 'mongod' ? 'mongod' : 'ferretdb',
      port: mongo.port,
      dir: mongo.dir,
    });
    const rest = runPrinted(command);
    expect(rest.stderr).to.match(/\d+ Talk items imported, \d+ records? refused\./);
    expect(storedTalkIds(api, storeArgs)).to.deep.equal(valid);
  });
});
