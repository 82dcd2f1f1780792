/**
 * Hostile and unusual input over real HTTP, one block per class: bodies left unread on a keep-alive
 * connection, invalid UTF-8, deep JSON, conflicting `@id`s, error IRIs, filter values a store cannot
 * take, Host headers, and the server's own time and connection limits. Every answer is a clear problem
 * document (or the documented behaviour), never a 500, a hang or a changed item. Runs on the store the
 * harness selects (APIDSL_TEST_STORE).
 */
import { expect } from 'chai';
import { connect, type Socket } from 'node:net';
import { Agent, request as poolRequest } from 'undici';
import { fixture, PROBLEM_JSON, rawRequest, request, useServer } from './harness.js';

const LD = { 'Content-Type': 'application/ld+json' };
const MERGE = { 'Content-Type': 'application/merge-patch+json' };
const QUERY_JSON = { 'Content-Type': 'application/json' };

/** `{"title":"deep","meta":[[…"x"…]]}` whose deepest value sits `depth` arrays and objects down, the body included. */
function nestedBody(depth: number): string {
  return `{"title":"deep","meta":${'['.repeat(depth - 1)}"x"${']'.repeat(depth - 1)}}`;
}

interface RawExchange {
  /** Everything the server sent, latin1. */
  data: string;
  /** Milliseconds from the first write until the server closed the connection; null if it did not. */
  closedAfter: number | null;
  /** A reset or other socket error seen by the client. */
  error?: string;
}

/**
 * Opens a TCP connection, writes `parts` in turn (a number waits that many ms), then waits up to
 * `waitMs` for the server to close; the socket is destroyed at the end in any case.
 */
function exchange(base: string, parts: (string | Buffer | number)[], waitMs: number): Promise<RawExchange> {
  const url = new URL(base);
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    const started = Date.now();
    const result: RawExchange = { data: '', closedAfter: null };
    let timer: NodeJS.Timeout | undefined;
    const finish = (): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    socket.on('data', (chunk: Buffer) => (result.data += chunk.toString('latin1')));
    socket.on('error', (e) => (result.error = e.message));
    socket.on('close', () => {
      result.closedAfter = Date.now() - started;
      finish();
    });
    void (async () => {
      for (const part of parts) {
        if (typeof part === 'number') await new Promise((r) => setTimeout(r, part));
        else if (!socket.destroyed) await new Promise<void>((r) => socket.write(part, () => r()));
      }
      timer = setTimeout(finish, waitMs);
    })();
  });
}

/**
 * How long a client waits for the server to close a connection: far beyond the timeouts the fixture sets
 * (at most 1 s), so a closing within it is the server's doing, on a machine however loaded.
 */
const CLIENT_PATIENCE_MS = 15_000;

const statusLines = (data: string): number[] => [...data.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));

describe('hostile input (fixture hostile.api)', function () {
  this.timeout(60_000);
  const server = useServer(fixture('hostile.api'));
  let port: number;
  before(async () => {
    port = Number(new URL(server.url).port);
  });

  const count = async (): Promise<number> =>
    (await request(server.url, 'GET', '/notes?pagination=false')).json.totalItems;

  describe('a body the server does not read leaves the connection usable', () => {
    let agent: Agent;
    beforeEach(() => {
      // One connection, reused: what every pooled client (browsers, fetch, axios…) does.
      agent = new Agent({ connections: 1, pipelining: 1 });
    });
    afterEach(async () => {
      await agent.close();
    });

    const next = async (): Promise<number> => {
      const r = await poolRequest(`${server.url}/notes`, { dispatcher: agent, signal: AbortSignal.timeout(5_000) });
      await r.body.text();
      return r.statusCode;
    };

    for (const [label, size] of [
      ['5 MB (drained)', 5 * 1024 * 1024],
      ['20 MB (connection closed)', 20 * 1024 * 1024],
    ] as const) {
      it(`a pooled client: after a 413 for ${label}, the next request on the pool is answered`, async () => {
        const r = await poolRequest(`${server.url}/notes`, {
          method: 'POST',
          dispatcher: agent,
          headers: LD,
          body: Buffer.alloc(size, 0x20),
        });
        expect(r.statusCode).to.equal(413);
        expect(r.headers['content-type']).to.equal(PROBLEM_JSON);
        expect(JSON.parse(await r.body.text()).status).to.equal(413);
        expect(await next()).to.equal(200);
      });
    }

    it('a pooled client: after a 415 and a 404 on requests with bodies, the next request is answered', async () => {
      const unsupported = await poolRequest(`${server.url}/notes`, {
        method: 'POST',
        dispatcher: agent,
        headers: { 'Content-Type': 'text/plain' },
        body: 'x'.repeat(200_000),
      });
      expect(unsupported.statusCode).to.equal(415);
      await unsupported.body.text();
      const missing = await poolRequest(`${server.url}/nowhere`, {
        method: 'POST',
        dispatcher: agent,
        headers: LD,
        body: 'x'.repeat(200_000),
      });
      expect(missing.statusCode).to.equal(404);
      await missing.body.text();
      expect(await next()).to.equal(200);
    });

    it('a raw socket: a 5 MB body answered 413 is drained, and the next request on the socket is answered', async () => {
      const size = 5 * 1024 * 1024;
      const r = await exchange(
        server.url,
        [
          `POST /notes HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/ld+json\r\nContent-Length: ${size}\r\n\r\n`,
          Buffer.alloc(size, 0x20),
          `GET /notes HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`,
        ],
        5_000,
      );
      expect(statusLines(r.data)).to.deep.equal([413, 200]);
    });

    it('a raw socket: a 20 MB body is answered 413 with Connection: close, and the connection is closed', async () => {
      const size = 20 * 1024 * 1024;
      const r = await exchange(
        server.url,
        [
          `POST /notes HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/ld+json\r\nContent-Length: ${size}\r\n\r\n`,
          Buffer.alloc(size, 0x20),
        ],
        5_000,
      );
      expect(statusLines(r.data)).to.deep.equal([413]);
      expect(r.data).to.match(/\r\nConnection: close\r\n/i);
      expect(r.closedAfter, 'closed by the server').to.not.equal(null);
    });
  });

  describe('request bodies must be UTF-8', () => {
    const invalid: [string, number[]][] = [
      ['a lone continuation byte', [0x80]],
      ['a truncated sequence', [0xc3, 0x28]],
      ['an overlong encoding of "/"', [0xc0, 0xaf]],
      ['an encoded surrogate', [0xed, 0xa0, 0x80]],
      ['a byte that never occurs', [0xff]],
    ];
    for (const [label, bytes] of invalid) {
      it(`${label} in a string: 400, nothing stored`, async () => {
        const before = await count();
        const body = Buffer.concat([Buffer.from('{"title":"bad'), Buffer.from(bytes), Buffer.from('"}')]);
        const r = await request(server.url, 'POST', '/notes', { headers: LD, body });
        expect(r.status, r.text).to.equal(400);
        expect(r.headers.get('content-type')).to.equal(PROBLEM_JSON);
        expect(r.json.detail).to.equal('The request body is not valid UTF-8.');
        expect(await count()).to.equal(before);
      });
    }

    it('invalid UTF-8 in a PATCH body leaves the item as it was', async () => {
      const created = await request(server.url, 'POST', '/notes', { body: { title: 'kept' } });
      const body = Buffer.concat([Buffer.from('{"title":"x'), Buffer.from([0xfe]), Buffer.from('"}')]);
      const r = await request(server.url, 'PATCH', created.json['@id'], { headers: MERGE, body });
      expect(r.status, r.text).to.equal(400);
      expect((await request(server.url, 'GET', created.json['@id'])).json.title).to.equal('kept');
    });

    it('valid multi-byte text is stored exactly', async () => {
      const title = 'héllo 😀 ☃ \u{10FFFF}';
      const r = await request(server.url, 'POST', '/notes', { body: { title } });
      expect(r.status, r.text).to.equal(201);
      expect((await request(server.url, 'GET', r.json['@id'])).json.title).to.equal(title);
    });
  });

  describe('JSON bodies are depth-limited (128 levels)', () => {
    it('128 levels are accepted and stored', async () => {
      const r = await request(server.url, 'POST', '/notes', { headers: LD, body: nestedBody(128) });
      expect(r.status, r.text).to.equal(201);
      const back = await request(server.url, 'GET', r.json['@id']);
      expect(JSON.stringify(back.json.meta)).to.equal(`${'['.repeat(127)}"x"${']'.repeat(127)}`);
    });

    for (const depth of [129, 5_000, 100_000]) {
      it(`${depth} levels: 400 before anything is parsed, nothing stored`, async () => {
        const before = await count();
        const r = await request(server.url, 'POST', '/notes', { headers: LD, body: nestedBody(depth) });
        expect(r.status, r.text).to.equal(400);
        expect(r.json.detail).to.equal('The JSON body is nested more than 128 levels deep.');
        expect(await count()).to.equal(before);
      });
    }

    it('brackets inside strings do not count', async () => {
      const r = await request(server.url, 'POST', '/notes', { body: { title: '['.repeat(5_000) + '\\"{' } });
      expect(r.status, r.text).to.equal(201);
    });

    it('deep PATCH, PUT and QUERY bodies: 400; an item holding a deep value still takes PATCH and PUT', async () => {
      const created = await request(server.url, 'POST', '/notes', { headers: LD, body: nestedBody(120) });
      expect(created.status, created.text).to.equal(201);
      const iri = created.json['@id'];
      const deepPatch = `{"meta":${'{"a":'.repeat(3_000)}1${'}'.repeat(3_000)}}`;
      expect((await request(server.url, 'PATCH', iri, { headers: MERGE, body: deepPatch })).status).to.equal(400);
      expect((await request(server.url, 'PUT', iri, { headers: LD, body: nestedBody(3_000) })).status).to.equal(400);
      expect(
        (
          await request(server.url, 'QUERY', '/notes', {
            headers: QUERY_JSON,
            body: `{"title":${'['.repeat(3_000)}${']'.repeat(3_000)}}`,
          })
        ).status,
      ).to.equal(400);
      const patched = await request(server.url, 'PATCH', iri, { headers: MERGE, body: { title: 'patched' } });
      expect(patched.status, patched.text).to.equal(200);
      expect(JSON.stringify(patched.json.meta)).to.have.length(2 * 119 + 3);
      const put = await request(server.url, 'PUT', iri, { body: { title: 'put' } });
      expect(put.status, put.text).to.equal(200);
      expect(put.json.title).to.equal('put');
      expect(JSON.stringify(put.json.meta)).to.have.length(2 * 119 + 3);
    });
  });

  describe('PUT with an @id', () => {
    let first: string;
    let second: string;
    before(async () => {
      first = (await request(server.url, 'POST', '/notes', { body: { title: 'first' } })).json['@id'];
      second = (await request(server.url, 'POST', '/notes', { body: { title: 'second' } })).json['@id'];
    });

    for (const [label, id] of [
      ['another item', () => first],
      ['another resource', () => '/tags/2'],
      ['no IRI at all', () => 42],
    ] as const) {
      it(`naming ${label}: 400, neither item changes`, async () => {
        const r = await request(server.url, 'PUT', second, { body: { '@id': id(), title: 'overwritten' } });
        expect(r.status, r.text).to.equal(400);
        expect(r.headers.get('content-type')).to.equal(PROBLEM_JSON);
        expect(r.json.detail).to.match(/^Invalid IRI /);
        expect((await request(server.url, 'GET', second)).json.title).to.equal('second');
        expect((await request(server.url, 'GET', first)).json.title).to.equal('first');
      });
    }

    it('naming an item that does not exist yet, on an upsert of another one: 400, nothing created', async () => {
      const before = await count();
      const r = await request(server.url, 'PUT', '/notes/9001', { body: { '@id': '/notes/9002', title: 'x' } });
      expect(r.status, r.text).to.equal(400);
      expect(await count()).to.equal(before);
    });

    it('naming the item itself: replaced as usual', async () => {
      const r = await request(server.url, 'PUT', second, { body: { '@id': second, title: 'second, replaced' } });
      expect(r.status, r.text).to.equal(200);
      expect(r.json.title).to.equal('second, replaced');
    });
  });

  describe('error IRIs lead to the error resource', () => {
    it('the type of a 404 document is served, in the Hydra form', async () => {
      const missing = await request(server.url, 'GET', '/notes/424242');
      expect(missing.status).to.equal(404);
      const r = await request(server.url, 'GET', missing.json.type, { headers: { Accept: 'application/ld+json' } });
      expect(r.status).to.equal(404);
      expect(r.headers.get('content-type')).to.equal(PROBLEM_JSON);
      expect(r.json).to.deep.equal({
        '@context': '/contexts/Error',
        '@id': '/errors/404',
        '@type': 'Error',
        title: 'Error 404',
        detail: 'Not Found',
        status: 404,
        type: 'about:blank',
      });
    });

    it('plain problem JSON for application/json, an HTML page for a browser', async () => {
      const json = await request(server.url, 'GET', '/errors/401', { headers: { Accept: 'application/json' } });
      expect(json.status).to.equal(401);
      expect(json.json).to.deep.equal({ type: 'about:blank', title: 'Error 401', status: 401, detail: 'Unauthorized' });
      const html = await request(server.url, 'GET', '/errors/403', { headers: { Accept: 'text/html' } });
      expect(html.status).to.equal(403);
      expect(html.headers.get('content-type')).to.equal('text/html; charset=utf-8');
      expect(html.text).to.contain('<title>Error 403</title>');
    });

    it('what is not an error status is no error resource', async () => {
      for (const path of ['/errors/200', '/errors/abc', '/errors/4044', '/errors/404.xml']) {
        const r = await request(server.url, 'GET', path);
        expect(r.status, path).to.equal(404);
        expect(r.json.type, path).to.equal('/errors/404');
      }
    });
  });

  describe('filter values a store cannot take', () => {
    before(async () => {
      for (const [title, price] of [
        ['alpha', 1],
        ['beta', 2],
        ['gamma', 3],
      ] as const) {
        await request(server.url, 'POST', '/notes', { body: { title, price } });
      }
    });

    it('range values that overflow to ±Infinity are ignored (200, unfiltered)', async () => {
      const all = (await request(server.url, 'GET', '/notes?pagination=false')).json.totalItems;
      for (const q of [
        'price[gt]=1e400',
        'price[lt]=-1e400',
        'price[gte]=-1e999&price[lte]=1e999',
        'price[between]=1e400..2',
        'price[between]=-1e400..1e400',
      ]) {
        const r = await request(server.url, 'GET', `/notes?pagination=false&${q}`);
        expect(r.status, `${q}: ${r.text}`).to.equal(200);
        expect(r.json.totalItems, q).to.equal(all);
      }
      const kept = await request(server.url, 'GET', '/notes?pagination=false&price[gt]=1e400&price[lt]=2.5');
      expect(kept.json.member.map((m: { title: string }) => m.title).sort())
        .to.include.members(['alpha', 'beta'])
        .and.not.include('gamma');
    });

    it('QUERY bodies with overflowing numbers: ignored (200)', async () => {
      const all = (await request(server.url, 'GET', '/notes?pagination=false')).json.totalItems;
      for (const body of [
        '{"price":{"gt":"1e400"}}',
        '{"price":{"gt":1e400}}',
        '{"price":{"between":"1e400..1e401"}}',
      ]) {
        const r = await request(server.url, 'QUERY', '/notes?pagination=false', { headers: QUERY_JSON, body });
        expect(r.status, `${body}: ${r.text}`).to.equal(200);
        expect(r.json.totalItems, body).to.equal(all);
      }
    });

    it('999 values of a partial search in the query string: answered, OR-ed', async () => {
      const values = Array.from({ length: 998 }, (_, i) => `title[]=zz${i}`).concat('title[]=amm');
      const r = await request(server.url, 'GET', `/notes?pagination=false&${values.join('&')}`);
      expect(r.status, r.text).to.equal(200);
      expect(r.json.member.map((m: { title: string }) => m.title))
        .to.include('gamma')
        .and.not.include('beta');
    });

    it('a QUERY body with 1,000 values is answered; with 5,000, a 400 that says why', async () => {
      const ok = await request(server.url, 'QUERY', '/notes', {
        headers: QUERY_JSON,
        body: { title: [...Array.from({ length: 999 }, (_, i) => `zz${i}`), 'eta'] },
      });
      expect(ok.status, ok.text).to.equal(200);
      expect(ok.json.member.map((m: { title: string }) => m.title)).to.deep.equal(['beta']);
      const many = await request(server.url, 'QUERY', '/notes', {
        headers: QUERY_JSON,
        body: { title: Array.from({ length: 5_000 }, (_, i) => `v${i}`) },
      });
      expect(many.status, many.text).to.equal(400);
      expect(many.headers.get('content-type')).to.equal(PROBLEM_JSON);
      expect(many.json.detail).to.equal(
        'Too many values for the "title" filter: 5000 given, at most 1000 are accepted.',
      );
    });
  });

  describe('the Host header', () => {
    const get = (host: string): Promise<{ status: number | null; text: string }> =>
      rawRequest(server.url, `GET /notes HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);

    for (const host of [
      'a>; rel="x", <http://evil.example',
      '',
      'example.com:99999',
      'exa mple.com',
      'example.com/path',
      'user@example.com',
      '[::1',
    ]) {
      it(`"${host}": 400, nothing built from it`, async () => {
        const r = await get(host);
        expect(r.status, r.text).to.equal(400);
        expect(r.text).to.not.match(/evil\.example\/docs/);
        expect(r.text).to.not.match(/^Link: <http:\/\/\//im);
      });
    }

    it('a Host that is a valid host[:port] is what links are built from', async () => {
      for (const host of ['api.example.com:8080', '[::1]:80', '10.0.0.1', 'xn--bcher-kva.example']) {
        const r = await get(host);
        expect(r.status, `${host}: ${r.text}`).to.equal(200);
        expect(r.text).to.contain(`Link: <http://${host}/docs.jsonld>`);
      }
    });

    it('an empty Host on HTTP/1.0 gets a problem document too', async () => {
      const r = await rawRequest(server.url, 'GET /notes HTTP/1.0\r\n\r\n');
      expect(r.status).to.equal(400);
    });
  });
});

describe('hostile input: trusted hosts and server limits (fixture hostile-limits.api)', function () {
  this.timeout(60_000);
  const server = useServer(fixture('hostile-limits.api'));
  let port: number;
  before(async () => {
    port = Number(new URL(server.url).port);
  });

  it('trusted_hosts: a Host no pattern matches answers 400 "Untrusted Host"', async () => {
    const bad = await rawRequest(
      server.url,
      'GET /notes HTTP/1.1\r\nHost: evil.example\r\nAccept: application/json\r\nConnection: close\r\n\r\n',
    );
    expect(bad.status).to.equal(400);
    expect(bad.text).to.contain('Untrusted Host \\"evil.example\\"');
    expect(bad.text).to.not.contain('evil.example/docs.jsonld');
    // Patterns are anchored by the user: `^api\.example\.com$` does not take a longer name.
    expect(
      (await rawRequest(server.url, 'GET /notes HTTP/1.1\r\nHost: api.example.com.evil\r\nConnection: close\r\n\r\n'))
        .status,
    ).to.equal(400);
    expect(
      (await rawRequest(server.url, 'GET /notes HTTP/1.1\r\nHost: API.Example.com:8443\r\nConnection: close\r\n\r\n'))
        .status,
    ).to.equal(200);
    expect((await request(server.url, 'GET', '/notes')).status).to.equal(200);
  });

  it('a client that never finishes its headers is cut off after headers_timeout (500 ms)', async () => {
    const r = await exchange(
      server.url,
      [`GET /notes HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`, 200, 'X-Slow: 1\r\n'],
      CLIENT_PATIENCE_MS,
    );
    expect(r.closedAfter, 'closed by the server').to.not.equal(null);
    expect(r.closedAfter!).to.be.below(CLIENT_PATIENCE_MS);
    expect(statusLines(r.data)).to.deep.equal([408]);
  });

  it('a Content-Length larger than the body sent is cut off after request_timeout (1 s)', async () => {
    const r = await exchange(
      server.url,
      [
        `POST /notes HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/ld+json\r\nContent-Length: 100\r\n\r\n{"title":`,
      ],
      CLIENT_PATIENCE_MS,
    );
    expect(r.closedAfter, 'closed by the server').to.not.equal(null);
    // Not before the timeout (the body may still come), and by the server, long before the client gives up.
    expect(r.closedAfter!).to.be.within(800, CLIENT_PATIENCE_MS);
    expect((await request(server.url, 'GET', '/notes?pagination=false')).json.totalItems).to.equal(0);
  });

  it('an idle keep-alive connection is closed after keep_alive_timeout (500 ms)', async () => {
    const r = await exchange(
      server.url,
      [`GET /notes HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`],
      CLIENT_PATIENCE_MS,
    );
    expect(statusLines(r.data)).to.deep.equal([200]);
    expect(r.closedAfter, 'closed by the server').to.not.equal(null);
    expect(r.closedAfter!).to.be.below(CLIENT_PATIENCE_MS);
  });

  it('connections past max_connections (8) are closed at once; the service answers again afterwards', async () => {
    const url = new URL(server.url);
    const sockets: Socket[] = [];
    const closed: number[] = []; // in the order the closings arrive
    for (let i = 0; i < 14; i++) {
      const socket = connect(Number(url.port), url.hostname);
      socket.on('error', () => undefined);
      socket.on('close', () => closed.push(i));
      sockets.push(socket);
      await new Promise((r) => socket.once('connect', r));
    }
    // The server closes the 6 past the limit, none of which sent anything; "at once": before any of the 8 it
    // keeps (which an idle timeout may close later).
    const excess = [8, 9, 10, 11, 12, 13];
    const deadline = Date.now() + CLIENT_PATIENCE_MS;
    while (!excess.every((i) => closed.includes(i)) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect(
      closed.slice(0, 6).sort((a, b) => a - b),
      'the first closed by the server',
    ).to.deep.equal(excess);
    for (const s of sockets) s.destroy();
    // Once the server has seen the 8 go, a new connection is served.
    let status = 0;
    while (status !== 200 && Date.now() < deadline) {
      status = await request(server.url, 'GET', '/notes').then(
        (r) => r.status,
        () => 0,
      );
    }
    expect(status).to.equal(200);
  });
});
