import { expect } from 'chai';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './support/cli.js';
import { fromRoot } from './support/paths.js';

const tmp = (): string => mkdtempSync(join(tmpdir(), 'apidsl-cli-'));

describe('apidsl check', () => {
  it('exits 0 and reports no problem for a clean file', () => {
    const r = runCli(['check', fromRoot('examples/bookstore.api')]);
    expect(r.status, r.stdout + r.stderr).to.equal(0);
    expect(r.stdout).to.include('Found 0 errors and 0 warnings in 1 file.');
  });

  it('prints file:line:col - severity CODE: message with a code frame, and exits 1', () => {
    const dir = tmp();
    const file = join(dir, 'bad.api');
    writeFileSync(file, 'resource Book {\n  paginationItemPerPage: 10\n  properties { id: int }\n}\n');
    const r = runCli(['check', file]);
    expect(r.status).to.equal(1);
    expect(r.stdout).to.include(`${file}:2:3 - error unknown-option: unknown resource option 'paginationItemPerPage'; did you mean 'paginationItemsPerPage'?`);
    expect(r.stdout).to.match(/> 2 \|\s+paginationItemPerPage: 10\n\s+\|\s+\^{21}/);
    expect(r.stdout).to.include('Found 1 error and 0 warnings in 1 file.');
  });

  it('prints JSON with 1-based positions and exits 0 when only warnings remain', () => {
    const dir = tmp();
    const file = join(dir, 'warn.api');
    writeFileSync(file, 'resource Book {\n  properties { id: int }\n  operations { Get, Patch }\n}\n');
    const r = runCli(['check', '--format', 'json', file]);
    expect(r.status).to.equal(0);
    expect(JSON.parse(r.stdout)).to.deep.equal([
      {
        file,
        line: 3,
        column: 21,
        endLine: 3,
        endColumn: 26,
        severity: 'warning',
        code: 'patch-disabled',
        message: 'this Patch operation will answer 415: config patch_formats is empty (add patch_formats: ["application/merge-patch+json"] to config)',
      },
    ]);
  });

  it('checks several files and reports an unreadable one', () => {
    const r = runCli(['check', '--format', 'json', fromRoot('examples/bookstore.api'), '/nonexistent/x.api']);
    expect(r.status).to.equal(1);
    const out = JSON.parse(r.stdout) as { file: string; code: string }[];
    expect(out.map((d) => [d.file, d.code])).to.deep.equal([['/nonexistent/x.api', 'unreadable-file']]);
  });

  it('reports brackets nested thousands deep as a diagnostic, in text and JSON (and fmt refuses the file)', () => {
    const dir = tmp();
    const file = join(dir, 'deep.api');
    const text = `resource Book {\n  operations { Get { normalizationContext: { a: ${'['.repeat(3000)} } } }\n}\n`;
    writeFileSync(file, text);
    const json = runCli(['check', '--format', 'json', file]);
    expect(json.status, json.stderr).to.equal(1);
    const deep = (JSON.parse(json.stdout) as { code: string; line: number; column: number; message: string }[]).filter((d) => d.code === 'nested-too-deeply');
    expect(deep).to.have.length(1);
    // Four levels are open before the first '[' (resource, operations, Get, the object): the 29th is the 33rd level.
    expect(deep[0]).to.include({ line: 2, column: text.split('\n')[1]!.indexOf('[') + 29 });
    expect(deep[0]!.message).to.match(/^nested too deeply/);
    const plain = runCli(['check', file]);
    expect(plain.status).to.equal(1);
    expect(plain.stdout + plain.stderr).to.contain('nested-too-deeply');
    expect(plain.stderr).not.to.contain('RangeError');
    const fmt = runCli(['fmt', file]);
    expect(fmt.status).to.equal(1);
    expect(fmt.stderr).to.match(/not formatted: line 2/);
    expect(readFileSync(file, 'utf8')).to.equal(text);
  });

  it('has --help and --version', () => {
    expect(runCli(['--version']).stdout.trim()).to.equal(JSON.parse(readFileSync(fromRoot('package.json'), 'utf8')).version);
    const help = runCli(['check', '--help']);
    expect(help.status).to.equal(0);
    expect(help.stdout).to.include('--format <format>');
    const migrate = runCli(['migrate', '--help']);
    expect(migrate.status).to.equal(0);
    expect(migrate.stdout).to.include('--dry-run').and.include('--data <dir>').and.include('--db <uri>');
  });
});

describe('apidsl fmt', () => {
  it('rewrites a file in the canonical layout, keeping comments, and is idempotent', () => {
    const dir = tmp();
    const file = join(dir, 'a.api');
    writeFileSync(file, 'resource Book {   // the books\n properties { id: int { identifier: true }, title: string }\n operations { Get, Post }\n}');
    const first = runCli(['fmt', file]);
    expect(first.status, first.stderr).to.equal(0);
    const formatted = readFileSync(file, 'utf8');
    expect(formatted).to.equal(
      'resource Book {  // the books\n  properties {\n    id: int { identifier: true }\n    title: string\n  }\n  operations {\n    Get\n    Post\n  }\n}\n',
    );
    const again = runCli(['fmt', '--check', file]);
    expect(again.status).to.equal(0);
    expect(readFileSync(file, 'utf8')).to.equal(formatted);
  });

  it('--check lists files that would change and leaves them alone', () => {
    const dir = tmp();
    const file = join(dir, 'b.api');
    const text = 'resource A { properties { id: int } }';
    writeFileSync(file, text);
    const r = runCli(['fmt', '--check', file]);
    expect(r.status).to.equal(1);
    expect(r.stdout.trim()).to.equal(file);
    expect(readFileSync(file, 'utf8')).to.equal(text);
  });

  it('refuses a file with a syntax error and does not touch it', () => {
    const dir = tmp();
    const file = join(dir, 'c.api');
    const text = 'resource A {\n  properties { id: int\n';
    writeFileSync(file, text);
    const r = runCli(['fmt', file]);
    expect(r.status).to.equal(1);
    expect(r.stderr).to.match(/not formatted: line \d+/);
    expect(readFileSync(file, 'utf8')).to.equal(text);
  });

  it('formats the bookstore example keeping every comment, and the result checks clean', () => {
    const dir = tmp();
    const file = join(dir, 'bookstore.api');
    copyFileSync(fromRoot('examples/bookstore.api'), file);
    expect(runCli(['fmt', file]).status).to.equal(0);
    const comments = (t: string): string[] => t.match(/\/\/.*$/gm)!.map((c) => c.trimEnd());
    expect(comments(readFileSync(file, 'utf8'))).to.deep.equal(comments(readFileSync(fromRoot('examples/bookstore.api'), 'utf8')));
    expect(runCli(['fmt', '--check', file]).status).to.equal(0);
    expect(runCli(['check', file]).status).to.equal(0);
  });
});
