/**
 * `apidsl client`: the package it writes (manifest, files, runtime size), and the package of every example and
 * fixture that loads compiles with `tsc --strict` (declarations checked, not skipped) and loads in Node.
 */
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { clientPackage } from '../../server/client/package.js';
import { apiFiles, loadableApis } from '../support/api-files.js';
import { runCli } from '../support/cli.js';
import { fromRoot } from '../support/paths.js';
import { compile } from '../support/typescript.js';

const dir = mkdtempSync(join(tmpdir(), 'apidsl-client-'));

describe('apidsl client: the package', function () {
  this.timeout(120_000);

  it('writes an ESM package with types, named by --name and versioned by the API', () => {
    const out = join(dir, 'bookstore');
    const r = runCli(['client', fromRoot('examples/bookstore.api'), '--out', out, '--name', '@acme/books-client']);
    expect(r.status, r.stderr).to.equal(0);
    const manifest = JSON.parse(readFileSync(join(out, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest).to.include({
      name: '@acme/books-client',
      version: '1.0.0',
      type: 'module',
      types: './index.d.ts',
    });
    expect(manifest).to.not.have.property('dependencies');
    expect(manifest.exports).to.deep.equal({ '.': { types: './index.d.ts', import: './index.js' } });
    for (const file of ['index.js', 'index.d.ts', 'runtime.js', 'runtime.d.ts'])
      expect(readFileSync(join(out, file), 'utf8')).to.not.match(/^import .* from '(?!\.\/)/m);
  });

  it('names the package after the API by default and refuses a name npm would refuse', () => {
    const out = join(dir, 'default-name');
    expect(runCli(['client', fromRoot('examples/bookstore.api'), '--out', out]).status).to.equal(0);
    expect(JSON.parse(readFileSync(join(out, 'package.json'), 'utf8'))).to.include({ name: 'bookstore-client' });
    const bad = runCli(['client', fromRoot('examples/bookstore.api'), '--out', out, '--name', 'Not A Name']);
    expect(bad.status).to.equal(2);
    expect(bad.stderr).to.equal('apidsl client: --name "Not A Name" is not an npm package name\n');
  });

  it('ships a runtime of at most 5 kB gzipped', () => {
    const runtime = readFileSync(fromRoot('dist/server/client/runtime.js'));
    const size = gzipSync(runtime, { level: 9 }).length;
    expect(size).to.be.at.most(5 * 1024);
  });

  it('compiles with tsc --strict, and loads, for every example and fixture', async function () {
    this.timeout(600_000);
    const files = [...apiFiles(fromRoot('examples')), ...apiFiles(fromRoot('test/fixtures'))];
    const roots: string[] = [];
    for await (const { file, api } of loadableApis(files)) {
      const out = join(dir, 'all', String(roots.length));
      mkdirSync(out, { recursive: true });
      for (const { path, text } of clientPackage(api)) writeFileSync(join(out, path), text);
      // A user's module importing the package: the declarations are checked as it sees them.
      writeFileSync(
        join(out, 'use.ts'),
        `import { createClient } from './index.js';\nexport const c = createClient({ baseUrl: 'http://localhost' });\n`,
      );
      roots.push(join(out, 'use.ts'));
      const loaded = (await import(pathToFileURL(join(out, 'index.js')).href)) as { createClient: unknown };
      expect(loaded.createClient, file).to.be.a('function');
    }
    expect(roots.length).to.be.greaterThan(100);
    expect(compile(roots).all).to.deep.equal([]);
  });
});
