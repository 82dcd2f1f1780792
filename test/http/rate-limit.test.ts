/**
 * Rate limits over real HTTP (docs/behaviour.md, "Rate limits"): requests counted per operation and client,
 * 429 past the limit with a problem document, `Retry-After` and the `RateLimit-Policy`/`RateLimit` headers; the
 * client read from `X-Forwarded-For` only behind a trusted proxy; per user with JWTs; `rateLimit: false`; the
 * window that resets; the in-process cache and the direct routes never serving past the limit; CORS exposing
 * the headers; the 429 in the OpenAPI document; `--workers 2` sharing one count, and two instances sharing one
 * through `cluster.redis`.
 */
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { expect } from 'chai';
import {
  get,
  post,
  PROBLEM_JSON,
  startServer,
  tempDir,
  useServer,
  type HttpResponse,
  type RunningServer,
} from './harness.js';
import { lastingStore, suiteDatabase } from './lasting-store.js';
import { as, token } from './security-helpers.js';
import { fromRoot } from '../support/paths.js';
import { startTestRedis } from '../support/redis-server.js';
import { hyperjump, seriousme } from '../openapi/validators.js';

const LIMITS = fromRoot('test/fixtures/rate-limit/limits.api');
const USERS = fromRoot('test/fixtures/rate-limit/users.api');
const SHARED = fromRoot('test/fixtures/rate-limit/shared.api');
const BOOKS_POLICY = '"_api_/books_get_collection";q=3;w=3600';

/** A GET as sent through the trusted proxy (127.0.0.1, the test's own address) for `client`. */
const from = (base: string, path: string, client: string, headers: Record<string, string> = {}) =>
  get(base, path, { 'X-Forwarded-For': client, ...headers });

/** A GET sent from 127.0.0.2, a peer that is no trusted proxy, with an `X-Forwarded-For` it may not set. */
function fromUntrustedPeer(base: string, path: string, forwardedFor: string): Promise<{ status: number }> {
  const url = new URL(base + path);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path,
        localAddress: '127.0.0.2',
        headers: { 'X-Forwarded-For': forwardedFor },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** The statuses of `n` requests made one after the other. */
async function statuses(n: number, send: () => Promise<{ status: number }>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await send()).status);
  return out;
}

describe('HTTP rate limits', () => {
  describe('per client address (config rate_limit: 3 an hour, trusted proxies)', () => {
    const server = useServer(LIMITS);

    it('counts down in RateLimit under the limit, then answers 429 with a problem document and Retry-After', async () => {
      const answers: HttpResponse[] = [];
      for (let i = 0; i < 4; i++) answers.push(await from(server.url, '/books', '203.0.113.1'));
      expect(answers.map((a) => a.status)).to.deep.equal([200, 200, 200, 429]);
      for (const a of answers) expect(a.headers.get('ratelimit-policy')).to.equal(BOOKS_POLICY);
      expect(
        answers.slice(0, 3).map((a) => /;r=(\d+);t=\d+$/.exec(a.headers.get('ratelimit') ?? '')?.[1]),
      ).to.deep.equal(['2', '1', '0']);
      const refused = answers[3];
      expect(refused.headers.get('content-type')).to.equal(PROBLEM_JSON);
      expect(refused.headers.get('ratelimit')).to.match(/^"_api_\/books_get_collection";r=0;t=\d+$/);
      const retry = Number(refused.headers.get('retry-after'));
      expect(retry).to.be.within(1, 3600);
      expect(refused.json).to.include({ status: 429, title: 'Too Many Requests' });
      expect(refused.json.detail).to.equal(
        `The rate limit of 3 requests per hour is reached; retry in ${retry} seconds.`,
      );
    });

    it('counts each operation apart: the POST of a client whose GETs are spent is served', async () => {
      expect(await statuses(4, () => from(server.url, '/books', '203.0.113.2'))).to.deep.equal([200, 200, 200, 429]);
      const created = await post(server.url, '/books', { title: 'Dune' }, { 'X-Forwarded-For': '203.0.113.2' });
      expect(created.status).to.equal(201);
      expect(created.headers.get('ratelimit-policy')).to.equal('"_api_/books_post";q=3;w=3600');
    });

    it('counts each client apart, the client being the right-most address no trusted proxy holds', async () => {
      expect(await statuses(4, () => from(server.url, '/books', '203.0.113.3'))).to.deep.equal([200, 200, 200, 429]);
      // Another client is served; 10.0.0.5 is a trusted proxy, so the client is the address before it.
      expect((await from(server.url, '/books', '203.0.113.4, 10.0.0.5')).status).to.equal(200);
      // A left-most address a client wrote itself changes nothing: 203.0.113.3 is still the one counted.
      expect((await from(server.url, '/books', '198.51.100.7, 203.0.113.3, 10.0.0.5')).status).to.equal(429);
    });

    it('ignores X-Forwarded-For from a peer that is no trusted proxy: the peer is counted', async () => {
      let sent = 0;
      const spoofed = await statuses(4, () => fromUntrustedPeer(server.url, '/books', `203.0.113.${20 + sent++}`));
      expect(spoofed).to.deep.equal([200, 200, 200, 429]);
    });

    it('does not limit an operation with rateLimit: false, nor send RateLimit headers there', async () => {
      expect(
        (await post(server.url, '/books', { title: 'Emma' }, { 'X-Forwarded-For': '203.0.113.5' })).status,
      ).to.equal(201);
      const answers: HttpResponse[] = [];
      for (let i = 0; i < 6; i++) answers.push(await from(server.url, '/books/1', '203.0.113.5'));
      expect(answers.map((a) => a.status)).to.deep.equal([200, 200, 200, 200, 200, 200]);
      expect(answers.map((a) => a.headers.get('ratelimit'))).to.deep.equal([null, null, null, null, null, null]);
    });

    it('serves the client again once the window is over', async function () {
      this.timeout(20_000);
      let refused: HttpResponse | undefined;
      for (let i = 0; i < 10 && !refused; i++) {
        const answer = await from(server.url, '/ticks', '203.0.113.6');
        if (answer.status === 429) refused = answer;
        else expect(answer.status).to.equal(200);
      }
      expect(refused, 'a 429 within 10 requests to a limit of 1 a second').to.not.equal(undefined);
      expect(refused!.headers.get('retry-after')).to.equal('1');
      await new Promise((done) => setTimeout(done, 1100));
      expect((await from(server.url, '/ticks', '203.0.113.6')).status).to.equal(200);
    });

    it('counts the hits of the in-process cache and the direct routes: a cached page still gets 429', async () => {
      // The same URL, Host and Accept each time: an anonymous GET the cache keeps, on a path the direct routes take.
      const answers: HttpResponse[] = [];
      for (let i = 0; i < 5; i++) answers.push(await from(server.url, '/books?page=1', '203.0.113.7'));
      expect(answers.map((a) => a.status)).to.deep.equal([200, 200, 200, 429, 429]);
      // The hits carry their own count, not the one of the response they replay.
      const left = answers.slice(0, 3).map((a) => /;r=(\d+);/.exec(a.headers.get('ratelimit') ?? '')?.[1]);
      expect(left).to.deep.equal(['2', '1', '0']);
      // Without X-Forwarded-For the peer itself (127.0.0.1) is the client; each of its hits is counted too.
      const direct = await statuses(4, () => get(server.url, '/books?page=1'));
      expect(direct).to.deep.equal([200, 200, 200, 429]);
    });

    it('exposes the rate-limit headers to pages of an allowed origin (CORS)', async () => {
      const answer = await from(server.url, '/books', '203.0.113.8', { Origin: 'https://app.example.com' });
      expect(answer.status).to.equal(200);
      const exposed = (answer.headers.get('access-control-expose-headers') ?? '').split(/,\s*/);
      expect(exposed).to.include.members(['RateLimit-Policy', 'RateLimit', 'Retry-After']);
    });

    it('lists the 429 of rate-limited operations in a valid OpenAPI document, not of the others', async () => {
      const doc = (await get(server.url, '/docs.json')).json;
      const responses = (path: string, method: string) => Object.keys(doc.paths[path][method].responses);
      expect(responses('/books', 'get')).to.include('429');
      expect(responses('/books', 'post')).to.include('429');
      expect(responses('/books/{id}', 'get')).to.not.include('429');
      expect(doc.paths['/books'].get.responses['429'].headers).to.have.keys(
        'Retry-After',
        'RateLimit-Policy',
        'RateLimit',
      );
      expect((await seriousme(doc)).valid).to.equal(true);
      expect((await hyperjump(doc)).valid).to.equal(true);
    });
  });

  describe('per user (by: "user", JWT)', () => {
    const server = useServer(USERS);

    it('counts each authenticated user apart, and anonymous requests by address', async () => {
      const alice = await token({ sub: 'alice' });
      const bob = await token({ sub: 'bob' });
      expect(await statuses(3, () => as(alice, server.url, 'GET', '/notes'))).to.deep.equal([200, 200, 429]);
      // Another user from the same address has a count of their own.
      expect(await statuses(3, () => as(bob, server.url, 'GET', '/notes'))).to.deep.equal([200, 200, 429]);
      // Anonymous requests count by address: alice's spent count is not theirs.
      expect(await statuses(3, () => as(undefined, server.url, 'GET', '/notes'))).to.deep.equal([200, 200, 429]);
    });

    it('for: "anonymous" limits anonymous callers only; for: "authenticated" limits users only', async () => {
      const carol = await token({ sub: 'carol' });
      // Get /notes/1 answers 404 (no note): a counted request all the same.
      expect(await statuses(3, () => as(undefined, server.url, 'GET', '/notes/1'))).to.deep.equal([404, 404, 429]);
      const user = await statuses(4, () => as(carol, server.url, 'GET', '/notes/1'));
      expect(user).to.deep.equal([404, 404, 404, 404]);
      const uncounted = await as(carol, server.url, 'GET', '/notes/1');
      expect(uncounted.headers.get('ratelimit'), 'no count, no headers').to.equal(null);
      expect(await statuses(3, () => as(carol, server.url, 'GET', '/memos'))).to.deep.equal([200, 200, 429]);
      expect(await statuses(4, () => as(undefined, server.url, 'GET', '/memos'))).to.deep.equal([200, 200, 200, 200]);
    });
  });

  describe('with cluster.redis', () => {
    it('shares one count between two instances, on several machines as on one', async function () {
      this.timeout(90_000);
      const redis = await startTestRedis();
      const dir = tempDir();
      const store = await lastingStore(dir);
      const instances: RunningServer[] = [];
      // `cluster.redis` from the environment, as a deployment may give it; the servers copy it when they start.
      process.env.APIDSL_REDIS_URL = redis.url;
      try {
        instances.push(await startServer(SHARED, store, 60_000));
        instances.push(await startServer(SHARED, store, 60_000));
        const [a, b] = instances;
        let turn = 0; // one request each in turn
        const answers = await statuses(4, () => from([a, b][turn++ % 2].url, '/books', '203.0.113.10'));
        expect(answers).to.deep.equal([200, 200, 200, 429]);
        // The first instance refuses the client too; another client is still served.
        expect((await from(a.url, '/books', '203.0.113.10')).status).to.equal(429);
        expect((await from(b.url, '/books', '203.0.113.11')).status).to.equal(200);
      } finally {
        delete process.env.APIDSL_REDIS_URL;
        for (const instance of instances) await instance.stop();
        await redis.stop();
      }
    });
  });

  describe('with --workers 2', () => {
    it('shares one count between the workers (kept by the primary)', async function () {
      this.timeout(90_000);
      const store = suiteDatabase() ? [] : ['--data', join(tempDir(), 'data')];
      const server = await startServer(LIMITS, [...store, '--workers', '2'], 60_000);
      try {
        // A new connection per request: the kernel spreads connections over the workers.
        const answers = await statuses(21, () => from(server.url, '/pages', '203.0.113.9', { Connection: 'close' }));
        expect(answers.slice(0, 20)).to.deep.equal(Array(20).fill(200));
        expect(answers[20]).to.equal(429);
        const pids = new Set<string>();
        for (const line of server.output().split('\n')) {
          const m = /"pid":(\d+).*"url":"\/pages"/.exec(line);
          if (m) pids.add(m[1]);
        }
        expect(pids.size, 'requests answered by both workers').to.equal(2);
      } finally {
        await server.stop();
      }
    });
  });
});
