/**
 * Malformed requests never answer 500, never take the server down, and never
 * change the stored data.
 */
import { expect } from 'chai';
import { bookstore, rawRequest, request, useServer } from './harness.js';

type Send = (base: string) => Promise<{ status: number | null }>;

const LD = { 'Content-Type': 'application/ld+json' };
const MERGE = { 'Content-Type': 'application/merge-patch+json' };

const postRaw =
  (body: string, headers: Record<string, string> = LD): Send =>
  (b) =>
    request(b, 'POST', '/books', { headers, body });
const go =
  (method: string, path: string, body?: string, headers: Record<string, string> = {}): Send =>
  (b) =>
    request(b, method, path, { headers, body });

let deep = '"x"';
for (let i = 0; i < 5000; i++) deep = `[${deep}]`;

/** Every one of these must be rejected (or be a harmless read); none may store anything. */
const malformed: [string, Send][] = [
  // Bodies that are not JSON, or not a JSON object.
  ['truncated object', postRaw('{"title":')],
  ['lone brace', postRaw('{')],
  ['lone bracket', postRaw('[')],
  ['trailing comma', postRaw('{"title":"x",}')],
  ['single quotes', postRaw("{'title':'x'}")],
  ['JSON null', postRaw('null')],
  ['JSON string', postRaw('"a string"')],
  ['JSON number', postRaw('42')],
  ['JSON true', postRaw('true')],
  ['empty array', postRaw('[]')],
  ['array of objects', postRaw('[{"title":"x"}]')],
  [
    'binary garbage',
    (b) => request(b, 'POST', '/books', { headers: LD, body: Uint8Array.from([0xff, 0xfe, 0x00, 0x01, 0x80, 0x7b]) }),
  ],
  [
    'invalid UTF-8 inside a string',
    (b) =>
      request(b, 'POST', '/books', {
        headers: LD,
        body: Buffer.concat([Buffer.from('{"title":"'), Buffer.from([0xc3, 0x28]), Buffer.from('","price":-1}')]),
      }),
  ],
  ['deeply nested value', postRaw(`{"title":${deep}}`)],
  // Wrong types.
  ['title as object', postRaw('{"title":{"nested":true}}')],
  ['title as array', postRaw('{"title":["a","b"]}')],
  ['title as number', postRaw('{"title":42}')],
  ['title as boolean', postRaw('{"title":true}')],
  ['price as word', postRaw('{"title":"x","price":"cheap"}')],
  ['price as object', postRaw('{"title":"x","price":{"amount":3}}')],
  ['negative price', postRaw('{"title":"x","price":-1}')],
  ['publishedAt not a date', postRaw('{"title":"x","publishedAt":"not a date"}')],
  ['publishedAt impossible date', postRaw('{"title":"x","publishedAt":"2024-13-45T99:99:99Z"}')],
  // The id is read-only (ignored, docs/behaviour.md "Identifiers"): the wrong title type refuses the body.
  ['id as word, title a number', postRaw('{"id":"abc","title":5}')],
  ['@id in a POST body', postRaw('{"@id":"/books/1","title":"x"}')],
  ['title too long', postRaw(JSON.stringify({ title: 'x'.repeat(300) }))],
  ['missing title', postRaw('{"author":"nobody"}')],
  // Headers.
  ['no Content-Type', postRaw('{"title":"x"}', {})],
  ['Content-Type text/plain', postRaw('{"title":"x"}', { 'Content-Type': 'text/plain' })],
  [
    'Content-Type multipart',
    postRaw('--x\r\n\r\n{"title":"x"}\r\n--x--', { 'Content-Type': 'multipart/form-data; boundary=x' }),
  ],
  ['Content-Type garbage', postRaw('{"title":"x"}', { 'Content-Type': ';;;/' })],
  ['Accept garbage on GET', go('GET', '/books/1', undefined, { Accept: 'application/ld+json;q=abc, ;;' })],
  ['Accept text/html on GET', go('GET', '/books/1', undefined, { Accept: 'text/html' })],
  // Paths.
  ['huge id', go('GET', '/books/99999999999999999999')],
  ['negative id', go('GET', '/books/-1')],
  ['zero id', go('GET', '/books/0')],
  ['decimal id', go('GET', '/books/1.5')],
  ['word id', go('GET', '/books/abc')],
  ['NUL in id', go('GET', '/books/%00')],
  ['invalid percent-encoding', go('GET', '/books/%ff%fe')],
  ['lone percent', go('GET', '/books/%')],
  ['encoded slashes', go('GET', '/books/..%2F..%2Fetc%2Fpasswd')],
  ['SQL in id', go('GET', "/books/1'%20OR%20'1'='1")],
  ['SQL in search filter', go('GET', "/books?title=x'%20OR%201=1--")],
  ['page 0', go('GET', '/books?page=0')],
  ['page word', go('GET', '/books?page=abc')],
  ['huge page', go('GET', '/books?page=99999999999999999999')],
  ['negative itemsPerPage', go('GET', '/books?itemsPerPage=-1')],
  ['bad order direction', go('GET', '/books?order[title]=sideways')],
  ['bad range', go('GET', '/books?price[between]=1..2..3&price[gt]=abc')],
  ['nested array filter', go('GET', '/books?title[]=a&title[][]=b&author[x][y]=z')],
  ['NUL in query key', go('GET', '/books?%00=1')],
  ['very long query string', go('GET', `/books?title=${'a'.repeat(6000)}`)],
  // Writes with bad ids or bodies.
  ['PUT with a word id', go('PUT', '/books/abc', '{"title":"x"}', LD)],
  ['PUT with a huge id', go('PUT', '/books/99999999999999999999', '{"title":"x"}', LD)],
  ['PUT with a negative price', go('PUT', '/books/1', '{"price":-5}', LD)],
  ['PUT with an empty title', go('PUT', '/books/1', '{"title":""}', LD)],
  ['PUT with bad JSON', go('PUT', '/books/1', '{"title"', LD)],
  ['PUT with a JSON array', go('PUT', '/books/1', '[1,2]', LD)],
  ['PATCH with an array patch', go('PATCH', '/books/1', '[1,2]', MERGE)],
  ['PATCH with a scalar patch', go('PATCH', '/books/1', '"title"', MERGE)],
  ['PATCH with a wrong type', go('PATCH', '/books/1', '{"price":"free"}', MERGE)],
  ['PATCH with bad JSON', go('PATCH', '/books/1', '{', MERGE)],
  ['DELETE with a word id', go('DELETE', '/books/abc')],
  ['DELETE with a huge id', go('DELETE', '/books/99999999999999999999')],
  // Methods.
  ['PROPFIND', go('PROPFIND', '/books')],
  ['PURGE', go('PURGE', '/books/1')],
  ['MKCOL', go('MKCOL', '/books/1')],
  ['OPTIONS', go('OPTIONS', '/books')],
  ['QUERY without Content-Type', go('QUERY', '/books', '{"title":"x"}')],
  ['QUERY with bad JSON', go('QUERY', '/books', '{', { 'Content-Type': 'application/json' })],
  ['unknown method', go('FROBNICATE', '/books/1')],
  // Bytes fetch would not send.
  [
    'raw: bad Content-Length',
    (b) =>
      rawRequest(
        b,
        'POST /books HTTP/1.1\r\nHost: x\r\nContent-Type: application/ld+json\r\nContent-Length: abc\r\n\r\n{}',
      ),
  ],
  ['raw: garbage request line', (b) => rawRequest(b, 'NOT HTTP AT ALL\r\n\r\n')],
];

describe('HTTP robustness: malformed requests', function () {
  this.timeout(60_000);
  const server = useServer(bookstore());
  let before1: unknown;
  let listBefore: unknown;

  before(async () => {
    for (const body of [
      { title: 'Dune', author: 'Frank Herbert', price: 9.99 },
      { title: 'Solaris', price: 7 },
    ]) {
      const r = await request(server.url, 'POST', '/books', { body });
      if (r.status !== 201) throw new Error(`POST /books answered ${r.status}: ${r.text}`);
    }
    before1 = (await request(server.url, 'GET', '/books/1')).json;
    listBefore = (await request(server.url, 'GET', '/books?pagination=false')).json;
  });

  it(`has at least 50 cases (${malformed.length})`, () => {
    expect(malformed.length).to.be.at.least(50);
  });

  for (const [name, send] of malformed) {
    it(`${name}: no 500, the server answers`, async () => {
      let status: number | null;
      try {
        status = (await send(server.url)).status;
      } catch (err) {
        throw new Error(`request failed (${(err as Error).message}); server output: ${server.output()}`);
      }
      expect(status, `no response; server output: ${server.output()}`).to.not.equal(null);
      expect(status, server.output()).to.be.below(500);
    });
  }

  it('the server is still up: GET /books/1 answers 200 with the same document', async () => {
    const r = await request(server.url, 'GET', '/books/1');
    expect(r.status).to.equal(200);
    expect(r.json).to.deep.equal(before1);
  });

  it('the stored data is unchanged', async () => {
    const r = await request(server.url, 'GET', '/books?pagination=false');
    expect(r.status).to.equal(200);
    expect(r.json.totalItems).to.equal(2);
    expect(r.json).to.deep.equal(listBefore);
  });

  it('a valid write still works afterwards', async () => {
    const r = await request(server.url, 'POST', '/books', { body: { title: 'After the storm' } });
    expect(r.status, r.text).to.equal(201);
    expect(r.json['@id']).to.equal('/books/3');
  });
});
