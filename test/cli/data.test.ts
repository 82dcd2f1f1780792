/**
 * `apidsl init`, `import`, `export` and `reset` run as a user runs them (the built command in a child
 * process), with the results read back over HTTP from `apidsl serve` on the same data directory.
 */
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { get, startServer, tempDir } from '../http/harness.js';
import { runCli } from '../support/cli.js';
import { fromRoot } from '../support/paths.js';

/** A project made by `apidsl init` in a fresh directory. */
function initProject(): { dir: string; api: string; data: string } {
  const dir = tempDir('apidsl-init-');
  const r = runCli(['init', dir]);
  expect(r.status, r.stderr).to.equal(0);
  return { dir, api: join(dir, 'todos.api'), data: join(dir, '.apidsl-data') };
}

/** The Todo items a server on `data` lists, without pagination. */
async function todosIn(api: string, data: string): Promise<Record<string, unknown>[]> {
  const server = await startServer(api, ['--data', data]);
  try {
    const r = await get(server.url, '/todos?itemsPerPage=100', { Accept: 'application/json' });
    expect(r.status, r.text).to.equal(200);
    return r.json as Record<string, unknown>[];
  } finally {
    await server.stop();
  }
}

describe('CLI: init', function () {
  this.timeout(180_000);

  it('writes a starter project that checks clean and serves, prints the next steps, and never overwrites', async () => {
    const parent = tempDir('apidsl-init-');
    const dir = join(parent, 'my-api');
    const r = runCli(['init', 'my-api'], { cwd: parent });
    expect(r.status, r.stderr).to.equal(0);
    expect(r.stdout).to.include('cd my-api').and.include('apidsl serve todos.api').and.include('/docs');
    const api = join(dir, 'todos.api');
    const starter = readFileSync(api, 'utf8');
    expect(starter).to.include('patch_formats').and.include('resource Todo').and.include('docs/options.md');
    // No recommendation of an extension that no marketplace has: the next steps say how to install the packaged one.
    expect(existsSync(join(dir, '.vscode'))).to.equal(false);
    expect(r.stdout).to.include(`code --install-extension ${fromRoot('vscode-extension/apidsl.vsix')}`);
    expect(r.stdout).to.include('apidsl lsp --stdio').and.include('docs/editor.md');
    expect(readFileSync(join(dir, '.gitignore'), 'utf8').split('\n')).to.include('.apidsl-data/');

    const check = runCli(['check', api]);
    expect(check.status, check.stdout).to.equal(0);
    expect(check.stdout).to.include('Found 0 errors and 0 warnings');
    expect(runCli(['fmt', '--check', api]).status).to.equal(0);

    const server = await startServer(api, ['--data', join(dir, '.apidsl-data')]);
    try {
      expect((await get(server.url, '/')).json).to.include({ todo: '/todos' });
    } finally {
      await server.stop();
    }

    writeFileSync(api, '// mine\n');
    const again = runCli(['init', dir]);
    expect(again.status).to.equal(1);
    expect(again.stderr).to.include('already exist').and.include('nothing written');
    expect(readFileSync(api, 'utf8')).to.equal('// mine\n');
  });

  it('refuses when only one of its files exists, writing none of the others', () => {
    const dir = tempDir('apidsl-init-');
    writeFileSync(join(dir, '.gitignore'), 'dist/\n');
    const r = runCli(['init', dir]);
    expect(r.status).to.equal(1);
    expect(r.stderr).to.include('.gitignore');
    expect(existsSync(join(dir, 'todos.api'))).to.equal(false);
    expect(readFileSync(join(dir, '.gitignore'), 'utf8')).to.equal('dist/\n');
  });
});

describe('CLI: import, export, reset', function () {
  this.timeout(180_000);

  it('imports a JSON array: each record checked as a POST body, refused ones reported by record, the others stored', async () => {
    const { dir, api, data } = initProject();
    const file = join(dir, 'todos.json');
    writeFileSync(
      file,
      JSON.stringify([
        { title: 'Buy milk' },
        { title: 'Write report', done: true, dueAt: '2030-01-02T10:00:00+02:00' },
        { title: '' },
        { title: 42 },
        { done: false },
        { title: 'x'.repeat(256) },
      ]),
    );
    const r = runCli(['import', api, 'Todo', file]);
    expect(r.status, r.stderr).to.equal(1);
    expect(r.stderr).to.include(`${file}:record 3: title: This value should not be blank.`);
    expect(r.stderr).to.include(`${file}:record 4: title: This value should be of type string.`);
    expect(r.stderr).to.include(`${file}:record 5: title: This value should not be blank.`);
    expect(r.stderr).to.include(`${file}:record 6: title: This value is too long.`);
    expect(r.stderr).to.include('2 Todo items imported, 4 records refused.');
    // Defaults filled and datetimes normalised, as for a POST; the server serves them.
    expect(await todosIn(api, data)).to.deep.equal([
      { id: 1, title: 'Buy milk', done: false },
      { id: 2, title: 'Write report', done: true, dueAt: '2030-01-02T08:00:00+00:00' },
    ]);
  });

  it('imports NDJSON (bad lines reported by line) and CSV (cells typed from the properties), keeping given identifiers', async () => {
    const { dir, api } = initProject();
    const ndjson = join(dir, 'todos.ndjson');
    writeFileSync(
      ndjson,
      '{"id": 10, "title": "ten"}\n\n{"title": "oops"\n{"id": 10, "title": "again"}\n{"id": 11, "title": "eleven", "done": true}\n',
    );
    const r1 = runCli(['import', api, 'Todo', ndjson]);
    expect(r1.status).to.equal(1);
    expect(r1.stderr).to.match(new RegExp(`${ndjson}:line 3: not JSON`));
    expect(r1.stderr).to.include(`${ndjson}:line 4: Todo identifier already exists (10)`);
    expect(r1.stderr).to.include('2 Todo items imported, 2 records refused.');

    const csv = join(dir, 'todos.csv');
    writeFileSync(
      csv,
      'id,title,done,dueAt\n20,"Call Bob, then Alice",true,\n21,"multi\nline",false,2031-05-06T07:08:09Z\n22,bad,maybe,\n',
    );
    const r2 = runCli(['import', api, 'Todo', csv]);
    expect(r2.status).to.equal(1);
    expect(r2.stderr).to.match(/todos\.csv:line 5: .*done/);
    expect(r2.stderr).to.include('2 Todo items imported, 1 record refused.');

    expect(exported(api)).to.deep.equal([
      { id: 10, title: 'ten', done: false },
      { id: 11, title: 'eleven', done: true },
      { id: 20, title: 'Call Bob, then Alice', done: true },
      { id: 21, title: 'multi\nline', done: false, dueAt: '2031-05-06T07:08:09+00:00' },
    ]);
  });

  it('exports in each format what imports back unchanged after a reset', async () => {
    const { dir, api, data } = initProject();
    const source = join(dir, 'todos.json');
    const todos = [
      { id: 1, title: 'a, "quoted"', done: true, dueAt: '2030-01-01T00:00:00+00:00' },
      { id: 2, title: 'ünïcödé\nline', done: false },
      { id: 5, title: 'five', done: false },
    ];
    writeFileSync(source, JSON.stringify(todos));
    expect(runCli(['import', api, 'Todo', source]).status).to.equal(0);

    const stdout = runCli(['export', api, 'Todo']);
    expect(stdout.status, stdout.stderr).to.equal(0);
    expect(JSON.parse(stdout.stdout)).to.deep.equal(todos);
    expect(stdout.stderr).to.include('3 Todo items exported.');

    for (const format of ['json', 'ndjson', 'csv']) {
      const out = join(dir, `out.${format}`);
      const e = runCli(['export', api, 'todo', '--out', out]);
      expect(e.status, e.stderr).to.equal(0);
      expect(e.stderr).to.include(`3 Todo items exported to ${out}.`);
      const reset = runCli(['reset', api, '--yes']);
      expect(reset.status, reset.stderr).to.equal(0);
      expect(reset.stderr).to.include('Todo: 3 items deleted');
      expect(exported(api)).to.deep.equal([]);
      const i = runCli(['import', api, 'Todo', out]);
      expect(i.status, `${format}: ${i.stderr}`).to.equal(0);
      expect(exported(api), format).to.deep.equal(todos);
    }
    // And what the server serves from that store.
    expect(await todosIn(api, data)).to.deep.equal(todos);
    const csv = readFileSync(join(dir, 'out.csv'), 'utf8');
    expect(csv.split('\n')[0]).to.equal('id,title,done,dueAt');
    expect(
      readFileSync(join(dir, 'out.ndjson'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).to.deep.equal(todos);
  });

  it('reset refuses without --yes when not on a terminal; --memory is refused; a wrong resource gets the closest name', async () => {
    const { dir, api, data } = initProject();
    writeFileSync(join(dir, 'one.ndjson'), '{"title": "keep me"}\n');
    expect(runCli(['import', api, 'Todo', join(dir, 'one.ndjson')]).status).to.equal(0);
    const reset = runCli(['reset', api]);
    expect(reset.status).to.equal(1);
    expect(reset.stderr).to.include('add --yes').and.include('1 item of Todo');
    expect(exported(api)).to.have.length(1);

    const memory = runCli(['import', api, 'Todo', join(dir, 'one.ndjson'), '--memory']);
    expect(memory.status).to.equal(1);
    expect(memory.stderr).to.include('--memory');
    expect(runCli(['export', api, 'Todo', '--memory']).status).to.equal(1);
    expect(runCli(['reset', api, '--memory', '--yes']).status).to.equal(1);

    const typo = runCli(['import', api, 'Todos', join(dir, 'one.ndjson')]);
    expect(typo.status).to.equal(1);
    expect(typo.stderr).to.include('no resource named Todos; did you mean Todo?');
    const format = runCli(['import', api, 'Todo', join(dir, 'todos.txt')]);
    expect(format.status).to.equal(1);
    expect(format.stderr).to.include('--format');
    expect(await todosIn(api, data)).to.have.length(1);
  });

  it('stores in --data DIR when given, leaving the default directory alone', async () => {
    const { dir, api, data } = initProject();
    const other = join(dir, 'elsewhere');
    mkdirSync(other);
    writeFileSync(join(dir, 'one.ndjson'), '{"title": "there"}\n');
    expect(runCli(['import', api, 'Todo', join(dir, 'one.ndjson'), '--data', other]).status).to.equal(0);
    expect(existsSync(join(other, 'apidsl.sqlite'))).to.equal(true);
    expect(existsSync(data), 'the default directory').to.equal(false);
    expect(await todosIn(api, other)).to.deep.equal([{ id: 1, title: 'there', done: false }]);
  });

  it('an interrupted import keeps its committed batches and names the --skip that finishes it without duplicates', async () => {
    const { dir, api, data } = initProject();
    const file = join(dir, 'many.ndjson');
    const total = 200_000;
    writeFileSync(
      file,
      Array.from({ length: total }, (_, i) => JSON.stringify({ id: i + 1, title: `todo ${i + 1}` })).join('\n'),
    );
    const child = spawn(
      process.execPath,
      [fromRoot('bin/apidsl.js'), 'import', api, 'Todo', file, '--batch-size', '500'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    // Interrupted once a first batch is committed, as a reader of the same SQLite file sees it.
    for (let waited = 0; committedTodos(data) === 0 && waited < 60_000; waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    child.kill('SIGINT');
    const code = await exited;
    const skip = /--skip (\d+)/.exec(stderr);
    expect(code, stderr).to.equal(1);
    expect(stderr).to.include('Interrupted:');
    expect(skip, stderr).to.not.equal(null);
    const done = Number(skip![1]);
    expect(done % 500, 'whole batches').to.equal(0);
    expect(done).to.be.within(1, total - 1);

    const rest = runCli(['import', api, 'Todo', file, '--skip', String(done)]);
    expect(rest.status, rest.stderr).to.equal(0);
    expect(rest.stderr).to.include(`${total - done} Todo items imported, 0 records refused.`);
    const out = join(dir, 'all.ndjson');
    expect(runCli(['export', api, 'Todo', '--out', out]).status).to.equal(0);
    const ids = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { id: number }).id);
    expect(ids).to.have.length(total);
    expect(ids[total - 1]).to.equal(total);
    expect(new Set(ids).size).to.equal(total);
  });

  it('shows a progress bar with items/s and the time left on a terminal', function () {
    if (!existsSync('/usr/bin/script')) {
      if (process.env.CI === 'true') throw new Error('util-linux `script` is needed to give the command a terminal');
      console.error(
        '\n*** SKIPPED the progress-bar test: /usr/bin/script (util-linux) is missing to give it a terminal ***\n',
      );
      this.skip();
    }
    const { dir, api } = initProject();
    const file = join(dir, 'some.ndjson');
    writeFileSync(file, Array.from({ length: 3_000 }, (_, i) => JSON.stringify({ title: `t${i}` })).join('\n'));
    // `script` runs the command on a pseudo-terminal and copies what it shows.
    const cmd = [process.execPath, fromRoot('bin/apidsl.js'), 'import', api, 'Todo', file, '--batch-size', '100']
      .map((a) => `'${a}'`)
      .join(' ');
    const r = runScript(cmd);
    expect(r).to.match(/items\/s/);
    expect(r).to.match(/ETA/);
    expect(r).to.include('3000 Todo items imported, 0 records refused.');
  });
});

/** How many Todo rows the embedded store in `data` holds for another reader (0 before its table exists). */
function committedTodos(data: string): number {
  if (!existsSync(join(data, 'apidsl.sqlite'))) return 0;
  const db = new Database(join(data, 'apidsl.sqlite'), { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM "Todo"').get() as { n: number }).n;
  } catch {
    return 0;
  } finally {
    db.close();
  }
}

/** The items `apidsl export` writes (JSON). */
function exported(api: string): unknown[] {
  const r = runCli(['export', api, 'Todo']);
  expect(r.status, r.stderr).to.equal(0);
  return JSON.parse(r.stdout) as unknown[];
}

function runScript(cmd: string): string {
  return spawnSync('script', ['-qefc', cmd, '/dev/null'], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } })
    .stdout;
}
