/**
 * Every command that opens a store, started against a MongoDB or a PostgreSQL that is not there, says so in one line of stderr
 * and exits 1 (cli/start-failure.ts); every command that reads a .api file does the same for a missing file. The
 * commands are read from `apidsl --help`: one that takes `--db` and is missing from `STORE_COMMANDS` fails here.
 */
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, type CliResult } from '../support/cli.js';
import { freePort } from '../support/mongodb.js';
import { fromRoot } from '../support/paths.js';

const dir = mkdtempSync(join(tmpdir(), 'apidsl-start-failure-'));
const books = fromRoot('examples/bookstore.api');
const asyncBooks = fromRoot('examples/async-books.api');
const data = join(dir, 'books.json');
writeFileSync(data, '[]');

/** The arguments of each command that opens a store, before the store flag (`--db`). */
const STORE_COMMANDS: Record<string, (file?: string) => string[]> = {
  serve: (file = books) => ['serve', file, '--port', '0'],
  consume: (file = asyncBooks) => ['consume', file],
  mcp: (file = fromRoot('test/fixtures/http/mcp.api')) => ['mcp', file],
  migrate: (file = books) => ['migrate', file],
  import: (file = books) => ['import', file, 'Book', data],
  export: (file = books) => ['export', file, 'Book'],
  reindex: (file = fromRoot('examples/search-books.api')) => ['reindex', file],
  reset: (file = books) => ['reset', file, '--yes'],
  'messenger failed': (file = asyncBooks) => ['messenger', 'failed', file],
};

/** Commands that read a .api file and open no store. */
const FILE_COMMANDS: Record<string, (file: string) => string[]> = {
  openapi: (file) => ['openapi', file],
  routes: (file) => ['routes', file],
  graphql: (file) => ['graphql', file],
  client: (file) => ['client', file, '--out', join(dir, 'sdk')],
  diff: (file) => ['diff', file, file],
};

/** The subcommands `apidsl [group] --help` lists, groups expanded (`messenger failed`). */
function commands(group: string[] = []): string[] {
  const help = runCli([...group, '--help']).stdout;
  const listed = help
    .slice(help.indexOf('Commands:'))
    .split('\n')
    .map((line) => /^ {2}([a-z][\w-]*)/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined && name !== 'help');
  return listed.flatMap((name) => {
    const own = runCli([...group, name, '--help']).stdout;
    return own.includes('Commands:') ? commands([...group, name]) : [[...group, name].join(' ')];
  });
}

/** Exit code 1, nothing on stdout, one line on stderr matching `line`. */
function expectOneLine(r: CliResult, line: RegExp): void {
  expect(r.status, r.stderr).to.equal(1);
  expect(r.stdout).to.equal('');
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines, r.stderr).to.have.length(1);
  expect(lines[0]).to.match(line);
}

describe('CLI: a command that cannot start says why in one line', function () {
  this.timeout(300_000);

  it('lists every command that takes a store (--db) in the table below', () => {
    const takesStore = commands().filter((name) => runCli([...name.split(' '), '--help']).stdout.includes('--db'));
    expect(takesStore.sort()).to.deep.equal(Object.keys(STORE_COMMANDS).sort());
  });

  for (const [name, args] of Object.entries({
    ...STORE_COMMANDS,
    'serve --workers 2': () => [...STORE_COMMANDS.serve(), '--workers', '2'],
  }))
    it(`apidsl ${name}: an unreachable MongoDB is one line, exit 1`, async () => {
      const port = await freePort();
      const r = runCli([...args(), '--db', `mongodb://u:secret@127.0.0.1:${port}/shop?serverSelectionTimeoutMS=300`], {
        timeoutMs: 120_000,
      });
      const command = name.replace(/ --.*/, '');
      expectOneLine(
        r,
        new RegExp(`^apidsl ${command}: cannot reach MongoDB at mongodb://\\*\\*\\*@127\\.0\\.0\\.1:${port}/shop`),
      );
      expect(r.stderr).to.not.contain('secret');
    });

  for (const [name, args] of Object.entries({
    ...STORE_COMMANDS,
    'serve --workers 2': () => [...STORE_COMMANDS.serve(), '--workers', '2'],
  }))
    it(`apidsl ${name}: an unreachable PostgreSQL is one line, exit 1`, async () => {
      const port = await freePort();
      const r = runCli([...args(), '--db', `postgres://u:secret@127.0.0.1:${port}/shop`], { timeoutMs: 120_000 });
      const command = name.replace(/ --.*/, '');
      expectOneLine(
        r,
        new RegExp(
          `^apidsl ${command}: cannot reach PostgreSQL at postgres://u:\\*\\*\\*@127\\.0\\.0\\.1:${port}/shop`,
        ),
      );
      expect(r.stderr).to.not.contain('secret');
    });

  for (const [name, args] of Object.entries({ ...STORE_COMMANDS, ...FILE_COMMANDS }))
    it(`apidsl ${name}: a missing .api file is one line, exit 1`, () => {
      const missing = join(dir, 'missing.api');
      const r = runCli(args(missing), { cwd: dir, timeoutMs: 120_000 });
      expectOneLine(r, new RegExp(`^apidsl ${name}: ENOENT: no such file or directory, open '${missing}'$`));
    });
});
