/**
 * The leak test of row-level scopes (docs/scopes.md, issue 41): for every example and fixture with a scope, random
 * rows of every resource (fast-check: random owners, random related rows, the literals the scopes compare with)
 * are written into a fresh store, the API is served on it, and each caller (two users, staff, anonymous) walks every
 * face the loaded API has: REST collections in every format with their pages, `totalItems` and `last`, every
 * declared filter and order parameter and QUERY body with values drawn from any row, item reads (404 identical to
 * an unknown identifier), JSON:API documents (members, `meta`, `included`, relationships), GraphQL connections,
 * items, `node` and relation fields, the MCP tools over HTTP and (in a file's first run) over stdio; then every
 * write outside the caller's scopes (REST, GraphQL mutations, MCP tools); then, where the API publishes to its
 * built-in Mercure hub, each caller's EventSource following every topic receives, once every row a caller may
 * change was written unchanged, only the updates of rows they may read. Nothing outside a caller's scope may show
 * (no token and no IRI of a row they may not read, counts equal to their rows) and nothing may change: the store
 * read back after the server stopped equals the store as seeded. The faces are derived from the API's metadata, so
 * a new scoped fixture is covered by adding nothing. The oracle (scopes-leaks/oracle.ts) evaluates each scope on
 * each row with SQL's three-valued logic, independently of the store conditions the server compiles.
 *
 * APIDSL_LEAK_RUNS (default 2): fast-check runs per file, each on a world of its own.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Storage } from '../../server/storage.js';
import { freshDatabaseUri } from '../support/mongodb.js';
import { fromRoot } from '../support/paths.js';
import { freshPostgresUrl } from '../support/postgres.js';
import { optionValue } from '../../server/metadata/options.js';
import { eventually } from '../support/eventually.js';
import { engineEnv, zincOrSkip } from '../support/zincsearch.js';
import { request, startServer, tempDir } from './harness.js';
import { bearer } from './security-helpers.js';
import { graphQlFaces, graphQlWrites } from './scopes-leaks/graphql.js';
import { jsonApiFaces } from './scopes-leaks/jsonapi.js';
import { mcpFaces, mcpHttpClient, mcpStdioClient } from './scopes-leaks/mcp.js';
import { LEAK_SUBSCRIBER_KEY, MercureFace, subscriberKeyEnv } from './scopes-leaks/mercure.js';
import { restFaces, restWrites, type Face } from './scopes-leaks/rest.js';
import { Findings, Sight } from './scopes-leaks/sight.js';
import { callers, LeakApi, materialize, seed, storedItems, worldArbitrary, type Shapes } from './scopes-leaks/world.js';

const RUNS = Number(process.env.APIDSL_LEAK_RUNS ?? 2);

/** The `.api` files of examples/ and test/fixtures/ that declare a scope. */
function scopedFiles(): string[] {
  const found: string[] = [];
  const visit = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.name.endsWith('.api') && /^\s*scope\s*[:{]|[{,]\s*scope\s*[:{]/m.test(readFileSync(path, 'utf8')))
        found.push(path);
    }
  };
  visit(fromRoot('examples'));
  visit(fromRoot('test/fixtures'));
  return found.sort();
}

/** A fresh store of the suite's kind, and the `serve` arguments that choose it. */
async function freshStorage(): Promise<{ storage: Storage; args: string[] }> {
  if (process.env.APIDSL_TEST_STORE === 'mongodb') {
    const uri = await freshDatabaseUri('leak');
    return { storage: { kind: 'mongodb', uri }, args: ['--db', uri] };
  }
  if (process.env.APIDSL_TEST_STORE === 'postgres') {
    const url = await freshPostgresUrl('leak');
    return { storage: { kind: 'postgres', url }, args: ['--db', url] };
  }
  const dir = tempDir('apidsl-leaks-');
  return { storage: { kind: 'file', dir }, args: ['--data', dir] };
}

let runs = 0;
/** The variable that gives the search index's prefix over the file's `index_prefix` (docs/elasticsearch.md). */
const INDEX_PREFIX = 'APIDSL_ELASTICSEARCH_INDEX_PREFIX';

/**
 * One run: seed, serve, every caller on every face, writes last, then the store compared with the seeded one. An
 * API reading the search index gets indexes of the run's own (the prefix from the environment, loaded again).
 * `withStdio`: the MCP tools are walked over stdio too.
 */
async function run(loaded: LeakApi, shapes: Shapes, picks: fc.Stream<number>, withStdio: boolean): Promise<void> {
  let leak = loaded;
  if (leak.indexed) {
    process.env[INDEX_PREFIX] = `leaks${process.pid}_${++runs}_`;
    leak = await LeakApi.load(leak.file);
  }
  const world = materialize(leak, shapes);
  const { storage, args } = await freshStorage();
  await seed(leak, world, storage);
  const seeded = await storedItems(leak, storage);
  const findings = new Findings();
  const server = await startServer(leak.file, args);
  const clients: McpClients[] = [];
  try {
    const faces: Face[] = [];
    for (const caller of await callers(leak)) {
      // Each caller its own choices, drawn before the callers run at once, so that a run is repeatable.
      const own = [...picks.take(256)];
      let next = 0;
      const pick = (n: number): number => (n <= 1 ? 0 : own[next++ % own.length]! % n);
      faces.push({ url: server.url, sight: await Sight.of(leak, world, caller, findings), pick });
    }
    // The stdio processes start at once (a Node start each, the longest part of that face).
    const stdio = withStdio ? await Promise.all(faces.map((face) => mcpStdioClient(face, args))) : [];
    for (const [i, face] of faces.entries()) clients.push({ http: await mcpHttpClient(face), stdio: stdio[i] });
    if (leak.indexed) await indexed(faces);
    await Promise.all(faces.map((face, i) => reads(face, clients[i]!)));
    // Subscribed before the writes: a refused write publishes nothing, the unchanged writes after them publish.
    const mercure = await MercureFace.open(faces);
    for (const [i, face] of faces.entries()) await writes(face, clients[i]!);
    await mercure?.publish();
    await mercure?.check();
  } finally {
    for (const { http, stdio } of clients) {
      await http?.close();
      await stdio?.close();
    }
    await server.stop();
  }
  const after = await storedItems(leak, storage);
  for (const [resource, items] of Object.entries(seeded))
    if (JSON.stringify(after[resource]) !== JSON.stringify(items))
      findings.add(`the store's ${resource} items changed: ${JSON.stringify(after[resource])}`);
  findings.throwIfAny();
}

/** A caller's MCP clients, over HTTP and over stdio (none: the API has no MCP endpoint). */
interface McpClients {
  http?: Client;
  stdio?: Client;
}

async function reads(face: Face, clients: McpClients): Promise<void> {
  await restFaces(face);
  await jsonApiFaces(face);
  await graphQlFaces(face);
  if (clients.http) await mcpFaces(face, 'reads', clients.http, 'HTTP');
  if (clients.stdio) await mcpFaces(face, 'reads', clients.stdio, 'stdio');
}

/** Writes come after every read, so that a write wrongly let through shows in the store's comparison alone. */
async function writes(face: Face, clients: McpClients): Promise<void> {
  await restWrites(face);
  await graphQlWrites(face);
  if (clients.http) await mcpFaces(face, 'writes', clients.http, 'HTTP');
  if (clients.stdio) await mcpFaces(face, 'writes', clients.stdio, 'stdio');
}

/**
 * Waits until the search index holds the seeded rows (the import hands them over as it closes; the engine shows
 * them shortly after): every index-backed collection counts, for each caller, the rows of their scope.
 */
async function indexed(faces: Face[]): Promise<void> {
  for (const face of faces)
    for (const op of face.sight.leak
      .operations()
      .filter((o) => o.isCollection && optionValue(o, 'elasticsearch') === true)) {
      if (op.method !== 'GET' || op.path.includes('{')) continue;
      const count = (await face.sight.visible(op)).length;
      await eventually(
        () =>
          request(face.url, 'GET', op.path, {
            headers: face.sight.caller.token ? bearer(face.sight.caller.token) : {},
          }),
        (r) => r.status === 200 && (r.json as { totalItems?: number }).totalItems === count,
      );
    }
}

describe('row-level scopes leak nothing, on any face (every scoped example and fixture)', function () {
  this.timeout(600_000);
  const files = scopedFiles();

  it('finds the scoped files', () => {
    expect(files.map((f) => relative(fromRoot('.'), f))).to.include.members([
      'examples/marketplace.api',
      'test/fixtures/http/scopes-faces.api',
    ]);
  });

  for (const file of files) {
    it(relative(fromRoot('.'), file), async function () {
      const leak = await LeakApi.load(file);
      expect(leak.scoped, 'a scope the loaded API holds').to.equal(true);
      const engine: Record<string, string> = leak.indexed ? engineEnv(await zincOrSkip(this)) : {};
      // The built-in hub's subscriber key, where the environment holds none (other suites set theirs).
      const hubKey = subscriberKeyEnv(leak);
      if (hubKey && !process.env[hubKey]) engine[hubKey] = LEAK_SUBSCRIBER_KEY;
      const saved = Object.fromEntries([...Object.keys(engine), INDEX_PREFIX].map((n) => [n, process.env[n]]));
      Object.assign(process.env, engine);
      let first = true;
      try {
        await fc.assert(
          fc.asyncProperty(worldArbitrary(leak), fc.infiniteStream(fc.nat()), (shapes, picks) => {
            // MCP over stdio differs from HTTP only in how the caller is known: walked in the first run alone.
            const withStdio = first;
            first = false;
            return run(leak, shapes, picks, withStdio);
          }),
          { numRuns: RUNS, endOnFailure: true },
        );
      } finally {
        // The suites after this one in the process keep their own engine and index prefix.
        for (const [name, value] of Object.entries(saved))
          if (value === undefined) delete process.env[name];
          else process.env[name] = value;
      }
    });
  }
});
