/**
 * The HTTP cache (docs/behaviour.md, "HTTP cache"): `cacheHeaders` and `http_cache` make Cache-Control and Vary;
 * the in-process response cache (http-cache.api) keeps anonymous GETs and drops exactly what a write touches,
 * never serving a page older than an acknowledged write; tags go out in `Cache-Tags` and purge requests reach
 * the external caches' endpoints (a local server plays one) without ever failing or holding up the write.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { HAMMER_MS, hammer } from './cache-staleness.js';
import { purgeEndpoint } from './purge-endpoint.js';
import {
  fixture,
  headerList,
  rawRequest,
  request,
  type RunningServer,
  startServer,
  tempDir,
  useServer,
} from './harness.js';

const FIXTURE = fixture('http-cache.api');
const MERGE = { 'Content-Type': 'application/merge-patch+json' };

async function seed(url: string): Promise<void> {
  expect((await request(url, 'POST', '/authors', { body: { name: 'Ann' } })).status).to.equal(201);
  expect((await request(url, 'POST', '/books', { body: { title: 'Dune', author: '/authors/1' } })).status).to.equal(
    201,
  );
}

describe('HTTP cache: headers', function () {
  this.timeout(60_000);
  const server = useServer(FIXTURE);
  before(async () => {
    await seed(server.url);
  });

  it('GETs carry the http_cache defaults: public, max-age, s-maxage; Vary on Accept, Content-Type, Authorization, Origin', async () => {
    for (const path of ['/books', '/books/1']) {
      const r = await request(server.url, 'GET', path);
      expect(r.headers.get('cache-control'), path).to.equal('public, max-age=60, s-maxage=3600');
      expect(headerList(r.headers, 'vary'), path).to.include.members([
        'Accept',
        'Content-Type',
        'Authorization',
        'Origin',
      ]);
      expect(r.headers.get('etag'), path).to.match(/^"/);
    }
  });

  it("an operation's cacheHeaders override the defaults: private leaves s-maxage out, stale_while_revalidate is sent, etag: false sends no ETag", async () => {
    const r = await request(server.url, 'GET', '/authors/1');
    expect(r.status).to.equal(200);
    expect(r.headers.get('cache-control')).to.equal('private, max-age=5, stale-while-revalidate=30');
    expect(r.headers.get('etag')).to.equal(null);
  });

  it("Vary names each header once, whatever its case, with or without an Origin, and holds the operation's own vary", async () => {
    for (const headers of [{}, { Origin: 'http://elsewhere.example' }] as Record<string, string>[]) {
      for (const [path, own] of [
        ['/books', 'Authorization'],
        ['/authors/1', 'X-Tenant'],
      ]) {
        const vary = headerList((await request(server.url, 'GET', path, { headers })).headers, 'vary');
        const lower = vary.map((v) => v.toLowerCase());
        expect(new Set(lower).size, `${path}: ${vary.join(', ')}`).to.equal(vary.length);
        expect(lower, path).to.include.members(['accept', own.toLowerCase()]);
      }
    }
  });

  it('writes and errors carry no Cache-Control', async () => {
    const created = await request(server.url, 'POST', '/books', { body: { title: 'Other', author: '/authors/1' } });
    expect(created.headers.get('cache-control')).to.equal(null);
    expect((await request(server.url, 'GET', '/books/999')).headers.get('cache-control')).to.equal(null);
  });

  it('no GET is ever older than a write whose response was received (concurrent writers and readers)', async function () {
    this.timeout(HAMMER_MS); // seconds of load on a busy machine: no timing is asserted
    const reads = await hammer(server.url, { writes: 40, readers: 4 });
    expect(reads).to.be.greaterThan(0);
  });
});

/** The same file without the in-process cache, serving the same data: writes it makes are unseen by the cache. */
function uncachedTwin(dir: string, source = FIXTURE): string {
  const file = join(dir, 'twin.api');
  writeFileSync(
    file,
    readFileSync(source, 'utf8').replace(/in_process \{ max_bytes: \d+ \}/, 'in_process { max_bytes: 0 }'),
  );
  return file;
}

// Both servers are given --data, so this runs on the embedded store in the MongoDB run too (the cache is the same).
describe('HTTP cache: the in-process response cache (two servers on one --data directory)', function () {
  this.timeout(60_000); // two servers start
  let cached: RunningServer;
  let twin: RunningServer;
  before(async () => {
    const dir = tempDir();
    cached = await startServer(FIXTURE, ['--data', join(dir, 'data')]);
    await seed(cached.url);
    expect((await request(cached.url, 'POST', '/vaults', { body: { label: 'first', secret: 's' } })).status).to.equal(
      201,
    );
    twin = await startServer(uncachedTwin(dir), ['--data', join(dir, 'data')]);
  });
  after(async () => {
    await twin?.stop();
    await cached?.stop();
  });
  const title = async (base: string, headers: Record<string, string> = {}): Promise<string> =>
    (await request(base, 'GET', '/books/1', { headers })).json.title;

  it('keeps a GET: a change it did not make is not seen until a write through it touches the page', async () => {
    expect(await title(cached.url)).to.equal('Dune');
    expect(
      (await request(twin.url, 'PATCH', '/books/1', { body: '{"title":"Elsewhere"}', headers: MERGE })).status,
    ).to.equal(200);
    expect(await title(cached.url), 'served from the cache').to.equal('Dune');
    // A write through the cached server to another item leaves the page; one to this item drops it.
    expect(
      (await request(cached.url, 'POST', '/books', { body: { title: 'Third', author: '/authors/1' } })).status,
    ).to.equal(201);
    expect(await title(cached.url)).to.equal('Dune');
    expect(
      (await request(cached.url, 'PATCH', '/books/1', { body: '{"title":"Here"}', headers: MERGE })).status,
    ).to.equal(200);
    expect(await title(cached.url)).to.equal('Here');
  });

  it('the collection page, the sub-resource collection and the item are dropped by a write to a member', async () => {
    const before = (await request(cached.url, 'GET', '/authors/1/books')).json.totalItems;
    await request(cached.url, 'GET', '/books');
    expect(
      (await request(cached.url, 'POST', '/books', { body: { title: 'Fourth', author: '/authors/1' } })).status,
    ).to.equal(201);
    expect((await request(cached.url, 'GET', '/authors/1/books')).json.totalItems).to.equal(before + 1);
    expect((await request(cached.url, 'GET', '/books')).json.totalItems).to.equal(before + 1);
  });

  it('requests with Authorization or Cookie are neither served from the cache nor kept', async () => {
    await title(cached.url);
    expect(
      (await request(twin.url, 'PATCH', '/books/1', { body: '{"title":"Private"}', headers: MERGE })).status,
    ).to.equal(200);
    expect(await title(cached.url, { Authorization: 'Bearer abc' })).to.equal('Private');
    expect(await title(cached.url, { Cookie: 'session=1' })).to.equal('Private');
    expect(await title(cached.url), 'the anonymous page is still the cached one').to.equal('Here');
  });

  it('each Accept is its own entry, and a cached entry answers If-None-Match with 304', async () => {
    const json = await request(cached.url, 'GET', '/books/1', { headers: { Accept: 'application/json' } });
    expect(json.json.title, 'first JSON read: not the JSON-LD entry').to.equal('Private');
    expect(json.json['@id']).to.equal(undefined);
    const etag = (await request(cached.url, 'GET', '/books/1')).headers.get('etag')!;
    const again = await request(cached.url, 'GET', '/books/1', { headers: { 'If-None-Match': etag } });
    expect(again.status).to.equal(304);
    expect(again.text).to.equal('');
  });

  it('never keeps what depends on the user: a resource with property security is read fresh', async () => {
    expect((await request(cached.url, 'GET', '/vaults/1')).json.label).to.equal('first');
    expect((await request(twin.url, 'GET', '/vaults/1')).status).to.equal(200);
    // The twin has no Patch on vaults: a new vault shows in the collection read through the cached server.
    expect((await request(cached.url, 'GET', '/vaults')).json.totalItems).to.equal(1);
    expect((await request(twin.url, 'POST', '/vaults', { body: { label: 'second' } })).status).to.equal(201);
    expect((await request(cached.url, 'GET', '/vaults')).json.totalItems).to.equal(2);
  });
});

describe('HTTP cache: a hit is answered before routing, exactly as the route answered', function () {
  this.timeout(60_000); // two servers start
  const ALLOWED = 'https://app.example.com';
  let cached: RunningServer;
  let twin: RunningServer;
  before(async () => {
    const dir = tempDir();
    // The fixture with CORS and trusted hosts: what a hit must not get around.
    const file = join(dir, 'guarded.api');
    writeFileSync(
      file,
      readFileSync(FIXTURE, 'utf8').replace(
        'config {',
        `config {\n  cors { allow_origin: ["${ALLOWED}"] }\n  trusted_hosts: ["^127\\\\.0\\\\.0\\\\.1$"]`,
      ),
    );
    cached = await startServer(file, ['--data', join(dir, 'data')]);
    await seed(cached.url);
    twin = await startServer(uncachedTwin(dir, file), ['--data', join(dir, 'data')]);
  });
  after(async () => {
    await twin?.stop();
    await cached?.stop();
  });
  const headersOf = (r: { headers: Headers }): Record<string, string> =>
    Object.fromEntries([...r.headers].filter(([name]) => name !== 'date'));
  const patchThroughTwin = async (title: string): Promise<void> => {
    const r = await request(twin.url, 'PATCH', '/books/1', { body: JSON.stringify({ title }), headers: MERGE });
    expect(r.status).to.equal(200);
  };

  it('a hit carries the status, every header (Date aside) and the body of the response it keeps, and is logged', async () => {
    const kept = await request(cached.url, 'PATCH', '/books/1', { body: '{"title":"Kept"}', headers: MERGE });
    expect(kept.status).to.equal(200);
    const miss = await request(cached.url, 'GET', '/books/1');
    await patchThroughTwin('Changed elsewhere');
    const logged = (): number =>
      cached
        .output()
        .split('\n')
        .filter((l) => l.includes('/books/1') && /\bGET\b/.test(l)).length;
    const linesBefore = logged();
    const hit = await request(cached.url, 'GET', '/books/1');
    expect(hit.json.title, 'served from the cache').to.equal('Kept');
    expect(hit.status).to.equal(miss.status);
    expect(headersOf(hit)).to.deep.equal(headersOf(miss));
    expect(hit.text).to.equal(miss.text);
    expect(hit.headers.get('link')).to.include('/docs.jsonld');
    expect(hit.headers.get('x-content-type-options')).to.equal('nosniff');
    // The log line is written after the response: wait for it (generously), then count.
    for (const deadline = Date.now() + 10_000; logged() === linesBefore && Date.now() < deadline;)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(logged(), 'the hit has its request log line').to.equal(linesBefore + 1);
  });

  it('each Origin is its own entry: a hit has the CORS headers of its own Origin', async () => {
    const page = (origin?: string) =>
      request(cached.url, 'GET', '/books?page=1', { headers: origin ? { Origin: origin } : {} });
    const first = await page(ALLOWED);
    expect(first.headers.get('access-control-allow-origin')).to.equal(ALLOWED);
    const total = first.json.totalItems as number;
    // Added through the twin: the cached server's entries are not dropped, so a hit still shows the old total.
    const added = await request(twin.url, 'POST', '/books', { body: { title: 'Unseen', author: '/authors/1' } });
    expect(added.status).to.equal(201);
    const other = await page('https://elsewhere.example.net');
    expect(other.json.totalItems, 'another Origin: not the allowed one’s entry').to.equal(total + 1);
    expect(other.headers.get('access-control-allow-origin')).to.equal(null);
    const none = await page();
    expect(none.headers.get('access-control-allow-origin')).to.equal(null);
    const again = await page(ALLOWED);
    expect(again.json.totalItems, 'the allowed Origin’s entry').to.equal(total);
    expect(again.headers.get('access-control-allow-origin')).to.equal(ALLOWED);
  });

  it('a Host the service does not trust is refused even when the same URL is cached for a trusted one', async () => {
    expect((await request(cached.url, 'GET', '/books/1')).status).to.equal(200);
    expect((await request(cached.url, 'GET', '/books/1')).status).to.equal(200);
    const port = new URL(cached.url).port;
    for (const host of ['evil.example', `evil.example:${port}`]) {
      const r = await rawRequest(cached.url, `GET /books/1 HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
      expect(r.status, host).to.equal(400);
      expect(r.text.toLowerCase()).to.include('content-type: application/problem+json');
    }
  });
});

describe('HTTP cache: with a custom authenticator, credentials are checked before a cached page is served', function () {
  this.timeout(60_000);
  const server = useServer(fixture('http-cache-authenticator.api'));

  it('a cached anonymous page never answers a request whose API key the authenticator refuses', async () => {
    expect((await request(server.url, 'POST', '/notes', { body: { text: 'open' } })).status).to.equal(201);
    for (let i = 0; i < 2; i++) expect((await request(server.url, 'GET', '/notes/1')).json.text).to.equal('open');
    for (const key of ['unknown', 'boom']) {
      const refused = await request(server.url, 'GET', '/notes/1', { headers: { 'X-Api-Key': key } });
      expect(refused.status, key).to.equal(401);
      expect(refused.headers.get('www-authenticate')).to.match(/^Bearer/);
    }
    const known = await request(server.url, 'GET', '/notes/1', { headers: { 'X-Api-Key': 'alice-key' } });
    expect(known.status).to.equal(200);
    expect(known.json.text).to.equal('open');
  });
});

describe('HTTP cache: tags and purge requests (invalidation)', function () {
  this.timeout(60_000);
  let server: RunningServer;
  let varnish: Awaited<ReturnType<typeof purgeEndpoint>>;
  let broken: Awaited<ReturnType<typeof purgeEndpoint>>;
  let hanging: Awaited<ReturnType<typeof purgeEndpoint>>;
  before(async () => {
    [varnish, broken, hanging] = await Promise.all([purgeEndpoint('ok'), purgeEndpoint('fail'), purgeEndpoint('hang')]);
    const dir = tempDir();
    const file = join(dir, 'purged.api');
    const urls = JSON.stringify([varnish.url, broken.url, hanging.url, 'http://127.0.0.1:9']);
    writeFileSync(
      file,
      readFileSync(FIXTURE, 'utf8').replace(
        'http_cache {',
        `http_cache {\n    invalidation { enabled: true, urls: ${urls}, purger: "varnish-ban", timeout: 300 }`,
      ),
    );
    server = await startServer(file);
    await seed(server.url);
  });
  after(async () => {
    await server?.stop();
    await Promise.all([varnish?.close(), broken?.close(), hanging?.close()]);
  });

  it('GET responses list the IRIs they show in Cache-Tags: the collection and each member, or the item', async () => {
    expect(
      (await request(server.url, 'POST', '/books', { body: { title: 'Two', author: '/authors/1' } })).status,
    ).to.equal(201);
    expect((await request(server.url, 'GET', '/books')).headers.get('cache-tags')!.split(',')).to.have.members([
      '/books',
      '/books/1',
      '/books/2',
    ]);
    expect((await request(server.url, 'GET', '/books/1')).headers.get('cache-tags')!.split(',')).to.have.members([
      '/books/1',
    ]);
    expect(
      (await request(server.url, 'GET', '/authors/1/books')).headers.get('cache-tags')!.split(','),
    ).to.have.members(['/authors/1/books', '/books', '/authors', '/books/1', '/books/2']);
  });

  it('every write BANs the item, its collection and its related items; failing, refused and silent endpoints never fail the write', async () => {
    varnish.received.length = 0;
    const patched = await request(server.url, 'PATCH', '/books/1', { body: '{"title":"Changed"}', headers: MERGE });
    expect(patched.status, patched.text).to.equal(200);
    const deleted = await request(server.url, 'DELETE', '/books/2');
    expect(deleted.status).to.equal(204);
    expect(varnish.received.map((r) => r.method)).to.deep.equal(['BAN', 'BAN']);
    const [patchBan, deleteBan] = varnish.received.map((r) => r.headers['apiplatform-ban-regex']);
    expect(patchBan).to.equal('(\\/books|\\/books\\/1|\\/authors\\/1)($|\\,)');
    expect(deleteBan).to.equal('(\\/books|\\/books\\/2|\\/authors\\/1)($|\\,)');
    // The failing and the silent endpoints were asked too; the silent one was given up on.
    expect(broken.received).to.have.length.of.at.least(2);
    expect(hanging.received).to.have.length.of.at.least(2);
    expect(server.output()).to.match(/http cache: purge (failed|refused)/);
  });
});

describe('HTTP cache: invalidation tags_header', function () {
  this.timeout(60_000);
  let server: RunningServer;
  let varnish: Awaited<ReturnType<typeof purgeEndpoint>>;
  before(async () => {
    varnish = await purgeEndpoint('ok');
    const file = join(tempDir(), 'xkey.api');
    // Varnish's xkey module reads the tags from an `xkey` response header and purges by the same keys.
    const invalidation = `invalidation { enabled: true, urls: ["${varnish.url}"], purger: "varnish-xkey", tags_header: "xkey" }`;
    writeFileSync(file, readFileSync(FIXTURE, 'utf8').replace('http_cache {', `http_cache {\n    ${invalidation}`));
    server = await startServer(file);
    await seed(server.url);
  });
  after(async () => {
    await server?.stop();
    await varnish?.close();
  });

  it('GET responses carry their tags under that header, and a purge request receives the same tags', async () => {
    const read = await request(server.url, 'GET', '/books/1');
    expect(read.status, read.text).to.equal(200);
    expect(read.headers.get('cache-tags')).to.equal(null);
    const tags = read.headers.get('xkey')!.split(',');
    expect(tags).to.deep.equal(['/books/1']);
    varnish.received.length = 0;
    const patched = await request(server.url, 'PATCH', '/books/1', { body: '{"title":"Changed"}', headers: MERGE });
    expect(patched.status, patched.text).to.equal(200);
    expect(varnish.received.map((r) => r.method)).to.deep.equal(['PURGE']);
    expect(varnish.received[0].headers.xkey.split(' ')).to.include.members(tags);
  });
});

describe('HTTP cache: JSON:API compound documents', function () {
  this.timeout(60_000);
  const server = useServer(() => {
    // The cache fixture with the JSON:API format added.
    const file = join(tempDir(), 'http-cache-jsonapi.api');
    const formats =
      'formats { jsonld: ["application/ld+json"], jsonapi: ["application/vnd.api+json"] }\n  patch_formats:';
    writeFileSync(file, readFileSync(FIXTURE, 'utf8').replace('patch_formats:', formats));
    return file;
  });
  before(async () => {
    await seed(server.url);
  });

  it('a write to an included item drops the cached document that includes it', async () => {
    const accept = { Accept: 'application/vnd.api+json' };
    const name = async () =>
      (await request(server.url, 'GET', '/books/1?include=author', { headers: accept })).json.included[0].attributes
        .name;
    expect(await name()).to.equal('Ann');
    expect(await name(), 'served again').to.equal('Ann');
    expect(
      (await request(server.url, 'PATCH', '/authors/1', { body: '{"name":"Bob"}', headers: MERGE })).status,
    ).to.equal(200);
    expect(await name()).to.equal('Bob');
  });
});
