/**
 * The npm package as a user gets it: `npm pack` of the built repository, installed from the tarball into a
 * fresh project (npm fetches the dependencies and builds better-sqlite3), then `apidsl init` and `apidsl serve`
 * run from that project's folder. Slow (minutes), so not part of `npm test`: .ci/run runs this file on its own.
 */
import { expect } from 'chai';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { get, post } from '../http/harness.js';
import { fromRoot, repoRoot } from '../support/paths.js';

const npm = (args: string[], cwd: string) => {
  const r = spawnSync('npm', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false' },
  });
  expect(r.status, `npm ${args.join(' ')}: ${r.stdout}\n${r.stderr}`).to.equal(0);
  return r.stdout;
};

/** The built admin's files (npm run build:admin), its script first. */
const adminFiles = (): string[] => {
  const manifest = JSON.parse(readFileSync(fromRoot('dist/admin/manifest.json'), 'utf8')) as {
    script: string;
    files: string[];
  };
  return [manifest.script, ...manifest.files.filter((f) => f !== manifest.script)];
};

describe('the npm package', function () {
  this.timeout(900_000);
  const work = mkdtempSync(join(tmpdir(), 'apidsl-pack-'));
  let tarball: string;
  let project: string;

  before(() => {
    // The repository is built (npm test built it), and so is the VS Code extension (.ci/run builds it; `npm pack`
    // would, through prepack): packing runs no build again.
    expect(existsSync(fromRoot('dist/cli/main.js')), 'run npm run build first').to.equal(true);
    expect(existsSync(fromRoot('dist/admin/manifest.json')), 'run npm run build:admin first').to.equal(true);
    expect(
      existsSync(fromRoot('vscode-extension/apidsl.vsix')),
      'run npm ci --prefix vscode-extension && npm run --prefix vscode-extension package first',
    ).to.equal(true);
    const [packed] = JSON.parse(npm(['pack', '--ignore-scripts', '--json', '--pack-destination', work], repoRoot)) as {
      filename: string;
      files: { path: string }[];
    }[];
    tarball = join(work, packed.filename);
    project = join(work, 'my-project');
    spawnSync('mkdir', ['-p', project]);
    // As the README tells a user of npm 11: allow better-sqlite3's native build in the project.
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'my-project', version: '1.0.0', private: true, allowScripts: { 'better-sqlite3': true } }),
    );
  });

  it('holds the command, its compiled code, the vendored browser files, the built admin, the starter, the VS Code extension, docs and examples, and no tests or maintainer tools', () => {
    const listing = spawnSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).stdout.split('\n');
    for (const path of [
      'package/bin/apidsl.js',
      'package/dist/cli/main.js',
      // The command as it runs: bundled with the packages it imports (scripts/bundle-cli.mjs).
      'package/dist/bundle/cli/main.js',
      'package/dist/bundle/cli/signals.js',
      // GraphiQL's page files, copied by the build from development dependencies (server/http/vendored-files.ts).
      'package/dist/vendor/graphiql/graphiql.min.js',
      // Swagger UI's, for /docs: an installed apidsl does not depend on swagger-ui-dist (and its telemetry script).
      'package/dist/vendor/swagger-ui/swagger-ui-bundle.js',
      'package/cli/starter/todos.api',
      // The VS Code extension, packaged: it is on no marketplace, so the package is where a user gets it.
      'package/vscode-extension/apidsl.vsix',
      'package/docs/options.md',
      'package/docs/editor.md',
      'package/examples/bookstore.api',
      'package/README.md',
      // The admin, built by prepack (npm run build:admin): its manifest and each file with its compressed variants.
      'package/dist/admin/manifest.json',
      ...adminFiles().flatMap((name) => [name, `${name}.gz`, `${name}.br`].map((f) => `package/dist/admin/${f}`)),
    ]) {
      expect(listing, path).to.include(path);
    }
    // Its sources and build tools stay in the repository.
    expect(listing.filter((p) => p.startsWith('package/admin/'))).to.deep.equal([]);
    expect(
      listing.filter(
        (p) =>
          p.startsWith('package/dist/test/') ||
          p.startsWith('package/test/') ||
          (p.startsWith('package/vscode-extension/') && p !== 'package/vscode-extension/apidsl.vsix'),
      ),
    ).to.deep.equal([]);
  });

  it("installs into a fresh project without the maintainers' tools, and `apidsl init` then `apidsl serve` work from there", async () => {
    npm(['install', tarball], project);
    const installed = readdirSync(join(project, 'node_modules'));
    for (const tool of ['@vscode', 'playwright-core', 'autocannon', 'esbuild', 'typescript', 'mocha', 'pino-pretty'])
      expect(installed, tool).to.not.include(tool);
    // No admin build tool is a dependency: the package serves the admin's built files only.
    const adminTools = Object.keys(
      (JSON.parse(readFileSync(fromRoot('admin/package.json'), 'utf8')) as { devDependencies: object }).devDependencies,
    );
    const rootPackage = JSON.parse(readFileSync(fromRoot('package.json'), 'utf8')) as { dependencies: object };
    expect(Object.keys(rootPackage.dependencies).filter((d) => adminTools.includes(d))).to.deep.equal([]);
    for (const tool of [...adminTools, '@mui', 'ra-core']) expect(installed, tool).to.not.include(tool.split('/')[0]);
    // No install script phones home: Swagger UI is vendored, so neither swagger-ui-dist nor Scarf comes along.
    expect(installed).to.not.include('swagger-ui-dist');
    expect(installed).to.not.include('@scarf');
    const bin = join(project, 'node_modules/.bin/apidsl');
    const version = spawnSync(bin, ['--version'], { cwd: project, encoding: 'utf8' });
    expect(version.stdout.trim()).to.match(/^\d+\.\d+\.\d+/);
    const init = spawnSync(bin, ['init'], { cwd: project, encoding: 'utf8' });
    expect(init.status, init.stderr).to.equal(0);
    // The next steps install the extension from inside the installed package, where it is.
    const vsix = join(project, 'node_modules/apidsl/vscode-extension/apidsl.vsix');
    expect(init.stdout).to.include(`code --install-extension ${vsix}\n`);
    expect(statSync(vsix).size).to.be.greaterThan(10_000);

    const child = spawn(bin, ['serve', 'todos.api', '--port', '0'], {
      cwd: project,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (out += c));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      let url: string | undefined;
      for (let waited = 0; url === undefined && waited < 60_000 && child.exitCode === null; waited += 100) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        url = /(http:\/\/127\.0\.0\.1:\d+)\n/.exec(out)?.[1];
      }
      expect(url, out).to.not.equal(undefined);
      expect((await get(url!, '/')).json).to.include({ todo: '/todos' });
      expect((await post(url!, '/todos', { title: 'from the tarball' })).status).to.equal(201);
      expect((await get(url!, '/docs', { Accept: 'text/html' })).status).to.equal(200);
      expect((await get(url!, '/docs/assets/swagger-ui-bundle.js')).status).to.equal(200);
      const admin = await get(url!, '/admin', { Accept: 'text/html' });
      expect(admin.text).to.contain(`<script type="module" src="/admin/${adminFiles()[0]}"></script>`);
      expect((await get(url!, `/admin/${adminFiles()[0]}`)).status).to.equal(200);
      expect(out).to.include(`  Admin: ${url}/admin\n`);
      expect(out).to.include(`Data: embedded SQLite store in ${join(project, '.apidsl-data')}`);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited, out).to.equal(0);
  });
});
