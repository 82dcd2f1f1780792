/**
 * `apidsl check` and `apidsl fmt` run as a user runs them: diagnostics and exit codes, folders walked,
 * `check --fix`, and coloured output.
 */
import { expect } from 'chai';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../support/cli.js';
import { fromRoot } from '../support/paths.js';

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
    expect(r.stdout).to.include(
      `${file}:2:3 - error unknown-option: unknown resource option 'paginationItemPerPage'; did you mean 'paginationItemsPerPage'?`,
    );
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
        message:
          'this Patch operation will answer 415: config patch_formats is empty (add patch_formats: ["application/merge-patch+json"] to config)',
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
    const deep = (JSON.parse(json.stdout) as { code: string; line: number; column: number; message: string }[]).filter(
      (d) => d.code === 'nested-too-deeply',
    );
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
    expect(runCli(['--version']).stdout.trim()).to.equal(
      JSON.parse(readFileSync(fromRoot('package.json'), 'utf8')).version,
    );
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
    writeFileSync(
      file,
      'resource Book {   // the books\n properties { id: int { identifier: true }, title: string }\n operations { Get, Post }\n}',
    );
    const first = runCli(['fmt', file]);
    expect(first.status, first.stderr).to.equal(0);
    const formatted = readFileSync(file, 'utf8');
    expect(formatted).to.equal(
      'resource Book {  // the books\n  properties { id: int { identifier: true }, title: string }\n  operations { Get, Post }\n}\n',
    );
    const again = runCli(['fmt', '--check', file]);
    expect(again.status).to.equal(0);
    expect(readFileSync(file, 'utf8')).to.equal(formatted);
  });

  it('--check lists files that would change and leaves them alone', () => {
    const dir = tmp();
    const file = join(dir, 'b.api');
    const text = 'resource A {properties { id: int } }';
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
    expect(comments(readFileSync(file, 'utf8'))).to.deep.equal(
      comments(readFileSync(fromRoot('examples/bookstore.api'), 'utf8')),
    );
    expect(runCli(['fmt', '--check', file]).status).to.equal(0);
    expect(runCli(['check', file]).status).to.equal(0);
  });
});

describe('apidsl check and fmt on folders', () => {
  it('fmt --check examples: every shipped example is in the canonical layout', () => {
    const r = runCli(['fmt', '--check', fromRoot('examples')]);
    expect(r.stdout + r.stderr).to.equal('');
    expect(r.status).to.equal(0);
  });

  it('check examples/: every .api file inside, recursively, checks clean', () => {
    const r = runCli(['check', fromRoot('examples/')]);
    expect(r.status, r.stdout + r.stderr).to.equal(0);
    const shipped = readdirSync(fromRoot('examples'), { recursive: true, encoding: 'utf8' }).filter((f) =>
      f.endsWith('.api'),
    );
    expect(shipped.length).to.be.greaterThan(5);
    expect(r.stdout).to.include(`Found 0 errors and 0 warnings in ${shipped.length} files.`);
  });

  it('walks sub-folders in name order, skipping node_modules and hidden folders, and takes only .api files', () => {
    const dir = tmp();
    mkdirSync(join(dir, 'b/deeper'), { recursive: true });
    mkdirSync(join(dir, 'node_modules/pkg'), { recursive: true });
    mkdirSync(join(dir, '.git'));
    writeFileSync(join(dir, 'a.api'), 'resource A {operations { Pots } }\n');
    writeFileSync(join(dir, 'b/deeper/c.api'), 'resource C {operations { Gte } }\n');
    writeFileSync(join(dir, 'b/notes.txt'), 'resource X { operations { Nope } }\n');
    writeFileSync(join(dir, 'node_modules/pkg/x.api'), 'resource X { operations { Nope } }\n');
    writeFileSync(join(dir, '.git/y.api'), 'resource Y { operations { Nope } }\n');
    const r = runCli(['check', '--format', 'json', dir]);
    expect(r.status).to.equal(1);
    const out = JSON.parse(r.stdout) as { file: string; message: string }[];
    expect(out.map((d) => [d.file, d.message])).to.deep.equal([
      [join(dir, 'a.api'), "unknown operation kind 'Pots'; did you mean 'Post'?"],
      [join(dir, 'b/deeper/c.api'), "unknown operation kind 'Gte'; did you mean 'Get'?"],
    ]);
    const f = runCli(['fmt', '--check', dir]);
    expect(f.stdout.trim().split('\n')).to.deep.equal([join(dir, 'a.api'), join(dir, 'b/deeper/c.api')]);
  });

  it('fmt formats every file of a folder', () => {
    const dir = tmp();
    cpSync(fromRoot('examples'), join(dir, 'examples'), { recursive: true });
    writeFileSync(join(dir, 'examples/messy.api'), 'resource   A{properties{id:int}}');
    const r = runCli(['fmt', dir]);
    expect(r.status, r.stderr).to.equal(0);
    expect(r.stdout.trim()).to.equal(`formatted ${join(dir, 'examples/messy.api')}`);
    expect(readFileSync(join(dir, 'examples/messy.api'), 'utf8')).to.equal('resource A { properties { id: int } }\n');
  });

  it('a folder without .api files is an error, not a silent success', () => {
    const dir = tmp();
    for (const cmd of [['check'], ['fmt', '--check']]) {
      const r = runCli([...cmd, dir]);
      expect(r.status).to.equal(1);
      expect(r.stderr).to.include(`no .api file in ${dir}`);
    }
  });
});

describe('apidsl check --fix', () => {
  const BROKEN = [
    'api \'Shop\' { version: "1" }',
    '',
    'resource Order {',
    '  properties {',
    '    id: int { identifier: true }',
    '    status: string { enum: ["open", "closed"], default: "opne" }',
    '  }',
    '  operations {',
    '    GetColection { paginationViaCursor: [{ field: "id", direction: "DESC" }] }',
    '    Pots',
    '    Patch',
    '  }',
    '}',
    '',
  ].join('\n');

  it('applies the quick fixes the language server offers, then reports what remains', () => {
    const dir = tmp();
    const file = join(dir, 'shop.api');
    writeFileSync(file, BROKEN);
    const r = runCli(['check', '--fix', file]);
    expect(r.stdout).to.include(`fixed 6 problems in ${file}`);
    expect(r.stdout).to.include('Found 0 errors and 0 warnings in 1 file.');
    expect(r.status).to.equal(0);
    const fixed = readFileSync(file, 'utf8');
    expect(fixed).to.include('api "Shop" { version: "1" }');
    expect(fixed).to.include('default: "open"');
    expect(fixed).to.include(
      '    GetCollection { paginationViaCursor: [{ field: "id", direction: "DESC" }], filters: ["orderIdRange", "orderIdOrder"] }',
    );
    expect(fixed).to.include(
      'filter orderIdRange: range { properties: ["id"] }\nfilter orderIdOrder: order { properties: ["id"] }\n',
    );
    expect(fixed).to.include('    Post\n');
    expect(fixed).to.include('patch_formats: ["application/merge-patch+json"]');
    // Nothing left to fix: a second run changes nothing.
    const again = runCli(['check', '--fix', file]);
    expect(again.stdout).not.to.include('fixed');
    expect(readFileSync(file, 'utf8')).to.equal(fixed);
  });

  it("fixes what people write from other languages: '1.0.0', integer, boolean, enum { … }", () => {
    const dir = tmp();
    const file = join(dir, 'talks.api');
    writeFileSync(
      file,
      [
        'api "Talks" { version: \'1.0.0\' }',
        '',
        'resource Talk {',
        '  properties {',
        '    id: int',
        '    rating: integer',
        '    featured: Boolean',
        '    status: enum { "draft", "published" }',
        '    level: enum [1, 2]',
        '  }',
        '}',
        '',
      ].join('\n'),
    );
    const r = runCli(['check', '--fix', file]);
    expect(r.stdout).to.include(`fixed 5 problems in ${file}`);
    expect(r.stdout).to.include('Found 0 errors and 0 warnings in 1 file.');
    expect(r.status).to.equal(0);
    expect(readFileSync(file, 'utf8')).to.equal(
      [
        'api "Talks" { version: "1.0.0" }',
        '',
        'resource Talk {',
        '  properties {',
        '    id: int',
        '    rating: int',
        '    featured: bool',
        '    status: string { enum: ["draft", "published"] }',
        '    level: int { enum: [1, 2] }',
        '  }',
        '}',
        '',
      ].join('\n'),
    );
  });

  it('leaves what has no fix, and the file untouched when nothing applies', () => {
    const dir = tmp();
    const file = join(dir, 'x.api');
    const text = 'resource A {\n  properties { id: int { colour: "red" } }\n}\n';
    writeFileSync(file, text);
    const r = runCli(['check', '--fix', file]);
    expect(r.status).to.equal(1);
    expect(r.stdout).to.include("unknown constraint 'colour'");
    expect(r.stdout).not.to.include('fixed');
    expect(readFileSync(file, 'utf8')).to.equal(text);
  });
});

describe('apidsl check colours', () => {
  const dir = tmp();
  const file = join(dir, 'bad.api');
  writeFileSync(file, 'resource A { operations { Pots } }\n');
  const ESC = '\u001b[';

  it('colours the severity, the location and the code frame when asked (FORCE_COLOR)', () => {
    const r = runCli(['check', file], { env: { FORCE_COLOR: '1', NO_COLOR: '' } });
    expect(r.stdout).to.include(`${ESC}1m${ESC}31merror`);
    expect(r.stdout).to.match(/\u001b\[31m\u001b\[1m\^/); // the marker under the code
    expect(r.stdout).to.include(`${ESC}31mFound 1 error`);
  });

  it('prints plain text through a pipe, and under NO_COLOR even when forced', () => {
    for (const env of [
      { FORCE_COLOR: '', NO_COLOR: '' },
      { FORCE_COLOR: '1', NO_COLOR: '1' },
      { FORCE_COLOR: '0', NO_COLOR: '' },
    ]) {
      const r = runCli(['check', file], { env: { ...env, CI: 'true' } });
      expect(r.stdout, JSON.stringify(env)).not.to.include('\u001b');
      expect(r.stdout).to.include(`${file}:1:27 - error unknown-operation-kind`);
    }
  });
});
