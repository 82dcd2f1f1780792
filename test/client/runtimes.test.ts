/**
 * The generated client under Bun and Deno (docs/client.md: the runtime needs only `fetch`): a TypeScript program
 * using the client of client/formats.api, compiled under `strict`, run by each runtime against `apidsl serve` on
 * the suite's store: CRUD in JSON-LD, a page and a walk over every page in JSON:API, a 422 read as violations.
 * The runtimes are found through APIDSL_BUN and APIDSL_DENO, else in the tools directory `.ci/run` installs them
 * into ($HOME/.cache/apidsl-ci-tools); a missing one skips its test, and fails it under CI=true.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { clientPackage } from '../../server/client/package.js';
import { loadApi } from '../../server/load-api.js';
import { useServer } from '../http/harness.js';
import { fromRoot } from '../support/paths.js';
import { compile } from '../support/typescript.js';

const FIXTURE = 'test/fixtures/client/formats.api';
const TOOLS = join(homedir(), '.cache', 'apidsl-ci-tools', 'node_modules', '.bin');

/** Each runtime: where it is, and the command line that runs a program with network access only. */
const RUNTIMES = {
  bun: { binary: process.env.APIDSL_BUN ?? join(TOOLS, 'bun'), args: (program: string) => [program] },
  deno: {
    binary: process.env.APIDSL_DENO ?? join(TOOLS, 'deno'),
    args: (program: string) => ['run', '--allow-net', '--no-lock', '--no-config', program],
  },
};

/** The user's program: prints what it saw as one JSON line. `config.js` (written per run) gives the API's URL. */
const PROGRAM = `import { createClient } from './sdk/index.js';
import { baseUrl } from './config.js';

const ld = createClient({ baseUrl });
const api = createClient({ baseUrl, format: 'jsonapi' });
const runtime = 'Deno' in globalThis ? 'deno' : 'Bun' in globalThis ? 'bun' : 'other';

const created = await ld.items.create({ name: \`\${runtime} lamp\`, price: 3 });
if (created.error) throw new Error(created.error.detail);
const id: number = created.data.id;
const read = await ld.items.get(id);
const updated = await ld.items.update(id, { price: 4 });
for (const name of ['p1', 'p2']) await api.items.create({ name });
const page = await api.items.list({ order: { id: 'desc' } });
const walked: string[] = [];
for await (const item of api.items.iterate({ order: { id: 'asc' } })) walked.push(item.name);
const invalid = await api.items.create({ name: 'x'.repeat(41), price: -1 });
const deleted = await ld.items.delete(id);
const gone = await ld.items.get(id);
console.log(JSON.stringify({
  runtime,
  created: [created.data['@id'] === \`/items/\${id}\`, created.data.name],
  read: read.data?.price,
  updated: updated.data?.price,
  page: [page.data?.members.map((m) => m.name), page.data?.totalItems, page.data?.next !== undefined],
  walked,
  invalid: invalid.error?.status === 422 ? invalid.error.violations.map((v) => v.propertyPath).sort() : invalid.error,
  deleted: deleted.error === undefined,
  gone: gone.error?.status,
}));
`;

describe(`apidsl client under Bun and Deno: a program against a served API (fixture ${FIXTURE})`, function () {
  this.timeout(300_000);
  const server = useServer(fromRoot(FIXTURE));
  const dir = mkdtempSync(join(tmpdir(), 'apidsl-client-runtimes-'));

  before(async () => {
    mkdirSync(join(dir, 'sdk'));
    for (const { path, text } of clientPackage(await loadApi(fromRoot(FIXTURE))))
      writeFileSync(join(dir, 'sdk', path), text);
    writeFileSync(join(dir, 'package.json'), '{ "type": "module", "private": true }\n');
    writeFileSync(join(dir, 'config.d.ts'), 'export declare const baseUrl: string;\n');
    writeFileSync(join(dir, 'program.ts'), PROGRAM);
    expect(compile([join(dir, 'program.ts')], dir).all).to.deep.equal([]);
  });

  for (const [name, { binary, args }] of Object.entries(RUNTIMES))
    it(`runs under ${name}: CRUD, a page and every page, a 422 as violations`, function () {
      if (!existsSync(binary)) {
        if (process.env.CI === 'true') expect.fail(`${name} is not installed at ${binary} (.ci/run installs it)`);
        console.error(
          `\n*** SKIPPED the ${name} run: ${name} is not installed at ${binary} (.ci/run installs it) ***\n`,
        );
        this.skip();
      }
      // The API's URL, as a module of its own: the program reads no environment (Deno would ask for the right).
      writeFileSync(join(dir, 'config.js'), `export const baseUrl = ${JSON.stringify(server.url)};\n`);
      const run = spawnSync(binary, args(join(dir, 'program.js')), { cwd: dir, encoding: 'utf8', timeout: 120_000 });
      expect(run.status, `${run.stdout}\n${run.stderr}`).to.equal(0);
      const seen = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
      // The other runtime's items may be there too: the walk ends with this run's, a page is 2 items, newest first.
      const walked = seen.walked as string[];
      expect(walked.slice(-3)).to.deep.equal([`${name} lamp`, 'p1', 'p2']);
      expect(seen).to.deep.equal({
        runtime: name,
        created: [true, `${name} lamp`],
        read: 3,
        updated: 4,
        page: [['p2', 'p1'], walked.length, true],
        walked,
        invalid: ['name', 'price'],
        deleted: true,
        gone: 404,
      });
    });
});
