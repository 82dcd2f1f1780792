/**
 * Content negotiation (docs/behaviour.md, "Representations"): output formats by Accept and by URL
 * extension, 406, unknown extensions, input Content-Type (415), syntax errors (400), body limit (413).
 */
import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  bookstore,
  bookstoreWithDune,
  errorDoc,
  fixture,
  JSON_UTF8,
  JSONLD,
  PROBLEM_JSON,
  request,
  type RunningServer,
  startServer,
  tempDir,
  useServer,
} from './harness.js';

const DUNE_JSONLD = {
  '@context': '/contexts/Book',
  '@id': '/books/1',
  '@type': 'Book',
  id: 1,
  title: 'Dune',
  author: 'Frank Herbert',
  price: 9.99,
};
const DUNE_JSON = { id: 1, title: 'Dune', author: 'Frank Herbert', price: 9.99 };

describe('HTTP content negotiation: output formats', () => {
  let server: RunningServer;
  before(async () => {
    server = await bookstoreWithDune();
  });
  after(async () => {
    await server?.stop();
  });

  it('Accept: application/json gives the item without any @ key', async () => {
    const r = await request(server.url, 'GET', '/books/1', { headers: { Accept: 'application/json' } });
    expect(r.status).to.equal(200);
    expect(r.headers.get('content-type')).to.equal(JSON_UTF8);
    expect(r.json).to.deep.equal(DUNE_JSON);
  });

  it('Accept: application/ld+json gives JSON-LD', async () => {
    const r = await request(server.url, 'GET', '/books/1', { headers: { Accept: 'application/ld+json' } });
    expect(r.status).to.equal(200);
    expect(r.headers.get('content-type')).to.equal(JSONLD);
    expect(r.json).to.deep.equal(DUNE_JSONLD);
  });

  it('Accept: */* gives JSON-LD (the first configured format)', async () => {
    const r = await request(server.url, 'GET', '/books/1', { headers: { Accept: '*/*' } });
    expect(r.status).to.equal(200);
    expect(r.headers.get('content-type')).to.equal(JSONLD);
    expect(r.json).to.deep.equal(DUNE_JSONLD);
  });

  it('Accept: */* with parameters still gives JSON-LD', async () => {
    const r = await request(server.url, 'GET', '/books/1', { headers: { Accept: '*/*; charset=utf-8' } });
    expect(r.status).to.equal(200);
    expect(r.headers.get('content-type')).to.equal(JSONLD);
  });

  it('q-values are honoured', async () => {
    const r = await request(server.url, 'GET', '/books/1', {
      headers: { Accept: 'application/ld+json;q=0.5, application/json' },
    });
    expect(r.status).to.equal(200);
    expect(r.headers.get('content-type')).to.equal(JSON_UTF8);
    expect(r.json).to.deep.equal(DUNE_JSON);
  });

  it('/books/1.jsonld gives JSON-LD whatever the default Accept', async () => {
    const r = await request(server.url, 'GET', '/books/1.jsonld');
    expect(r.status).to.equal(200);
    expect(r.headers.get('content-type')).to.equal(JSONLD);
    expect(r.json).to.deep.equal(DUNE_JSONLD);
  });

  it('/books/1.json gives plain JSON', async () => {
    const r = await request(server.url, 'GET', '/books/1.json');
    expect(r.status).to.equal(200);
    expect(r.headers.get('content-type')).to.equal(JSON_UTF8);
    expect(r.json).to.deep.equal(DUNE_JSON);
  });

  it('Accept: text/plain answers 406 listing the supported MIME types', async () => {
    const r = await request(server.url, 'GET', '/books/1', { headers: { Accept: 'text/plain' } });
    expect(r.status).to.equal(406);
    expect(r.headers.get('content-type')).to.equal(PROBLEM_JSON);
    expect(r.json).to.deep.equal(
      errorDoc(
        406,
        'Requested format "text/plain" is not supported. Supported MIME types are "application/ld+json", "application/json".',
      ),
    );
  });

  it("an extension with an incompatible Accept answers 406 naming only the extension's type", async () => {
    const r = await request(server.url, 'GET', '/books/1.json', { headers: { Accept: 'text/xml' } });
    expect(r.status).to.equal(406);
    expect(r.json.detail).to.equal(
      'Requested format "text/xml" is not supported. Supported MIME types are "application/json".',
    );
  });

  it('Accept: application/vnd.api+json while JSON:API is off answers 406 naming the formats entry that serves it', async () => {
    const r = await request(server.url, 'GET', '/books/1', { headers: { Accept: 'application/vnd.api+json' } });
    expect(r.status).to.equal(406);
    expect(r.json.detail).to.equal(
      'Requested format "application/vnd.api+json" is not supported. Supported MIME types are "application/ld+json", "application/json". ' +
        'To serve it, add jsonapi: ["application/vnd.api+json"] to the formats setting, with the formats kept: ' +
        'config { formats { jsonld: ["application/ld+json"], json: ["application/json"], jsonapi: ["application/vnd.api+json"] } }.',
    );
  });

  it('the extension .jsonapi while JSON:API is off answers 404 naming the formats entry that serves it', async () => {
    const r = await request(server.url, 'GET', '/books/1.jsonapi');
    expect(r.status).to.equal(404);
    expect(r.json.detail).to.match(
      /^Format "jsonapi" is not supported\. To serve it, add jsonapi: \["application\/vnd\.api\+json"\]/,
    );
  });

  it('an unknown extension /books/1.invalid answers 404', async () => {
    const r = await request(server.url, 'GET', '/books/1.invalid');
    expect(r.status).to.equal(404);
    expect(r.headers.get('content-type')).to.equal(PROBLEM_JSON);
    expect(r.json).to.deep.equal(errorDoc(404, 'Format "invalid" is not supported'));
  });
});

describe('HTTP content negotiation: the config a 406 names serves the format', () => {
  let server: RunningServer | undefined;
  after(async () => {
    await server?.stop();
  });

  it('the bookstore with the formats the detail gives answers application/vnd.api+json', async () => {
    const off = await bookstoreWithDune();
    let detail: string;
    try {
      detail = (await request(off.url, 'GET', '/books/1', { headers: { Accept: 'application/vnd.api+json' } })).json
        .detail;
    } finally {
      await off.stop();
    }
    const formats = /config \{ (formats \{ .* \}) \}\.$/.exec(detail)![1];
    const file = join(tempDir(), 'bookstore.api');
    writeFileSync(file, readFileSync(bookstore(), 'utf8').replace(/^config \{$/m, `config {\n  ${formats}`));
    server = await startServer(file);
    const r = await request(server.url, 'GET', '/books', { headers: { Accept: 'application/vnd.api+json' } });
    expect(r.status).to.equal(200);
    expect(r.headers.get('content-type')).to.equal('application/vnd.api+json');
    expect(r.json).to.have.property('data').that.is.an('array');
    expect(
      (await request(server.url, 'GET', '/books', { headers: { Accept: 'application/ld+json' } })).status,
    ).to.equal(200);
  });
});

describe('HTTP content negotiation: request bodies', () => {
  const server = useServer(bookstore());

  it('POST without Content-Type answers 415 "The "Content-Type" header must exist."', async () => {
    const r = await request(server.url, 'POST', '/books', { body: '{"title":"No type"}' });
    expect(r.status).to.equal(415);
    expect(r.headers.get('content-type')).to.equal(PROBLEM_JSON);
    expect(r.json).to.deep.equal(errorDoc(415, 'The "Content-Type" header must exist.'));
  });

  it('POST with Content-Type text/plain answers 415 listing the input MIME types', async () => {
    const r = await request(server.url, 'POST', '/books', {
      headers: { 'Content-Type': 'text/plain' },
      body: '{"title":"Plain"}',
    });
    expect(r.status).to.equal(415);
    expect(r.json).to.deep.equal(
      errorDoc(
        415,
        'The content-type "text/plain" is not supported. Supported MIME types are "application/ld+json", "application/json".',
      ),
    );
  });

  it('Content-Type parameters are ignored (application/ld+json; charset=utf-8 is accepted)', async () => {
    const r = await request(server.url, 'POST', '/books', {
      headers: { 'Content-Type': 'application/ld+json; charset=utf-8' },
      body: '{"title":"With charset"}',
    });
    expect(r.status, r.text).to.equal(201);
    expect(r.json.title).to.equal('With charset');
  });

  it('malformed JSON answers 400 "Syntax error"', async () => {
    const r = await request(server.url, 'POST', '/books', {
      headers: { 'Content-Type': 'application/ld+json' },
      body: '{"title": "Dune",',
    });
    expect(r.status).to.equal(400);
    expect(r.headers.get('content-type')).to.equal(PROBLEM_JSON);
    expect(r.json).to.deep.equal(errorDoc(400, 'Syntax error'));
  });

  it('an empty body answers 400 "Syntax error"', async () => {
    const r = await request(server.url, 'POST', '/books', {
      headers: { 'Content-Type': 'application/ld+json' },
      body: '',
    });
    expect(r.status).to.equal(400);
    expect(r.json.detail).to.equal('Syntax error');
  });

  it('nothing was stored by the rejected requests', async () => {
    const r = await request(server.url, 'GET', '/books');
    expect(r.json.totalItems).to.equal(1);
    expect(r.json.member.map((m: { title: string }) => m.title)).to.deep.equal(['With charset']);
  });
});

describe('HTTP content negotiation: body size limit (config body_size_limit: 100)', () => {
  const server = useServer(fixture('body-limit.api'));

  it('a body under the limit is accepted', async () => {
    const r = await request(server.url, 'POST', '/notes', { body: { text: 'short' } });
    expect(r.status, r.text).to.equal(201);
  });

  it('a body over the limit answers 413 and is not stored', async () => {
    const r = await request(server.url, 'POST', '/notes', { body: { text: 'x'.repeat(200) } });
    expect(r.status).to.equal(413);
    expect(r.json?.status).to.equal(413);
    const list = await request(server.url, 'GET', '/notes');
    expect(list.json.totalItems).to.equal(1);
  });
});
