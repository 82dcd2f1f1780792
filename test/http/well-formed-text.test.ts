/**
 * Request bodies are Unicode text (docs/behaviour.md, "Hostile input and limits"): a JSON body holding a lone
 * UTF-16 surrogate (`"\ud83d"`, in a value or a key) and a body of bytes that are not UTF-8 answer 400 and store
 * nothing, on every face that reads a body (REST JSON-LD, JSON, JSON:API, merge-patch, a bulk POST, GraphQL
 * variables, MCP arguments), on both stores (APIDSL_TEST_STORE=mongodb); a well-formed pair (an emoji) is stored
 * as sent.
 */
import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { fixture, request, PROBLEM_JSON, useServer, type HttpResponse } from './harness.js';

const LONE = '"\\ud83d"'; // JSON text of a string holding a lone high surrogate
const LONE_LOW = '"x\\udE00"';
const PAIR = '"\\ud83d\\ude00"'; // 😀, well formed

describe('Well-formed text in request bodies (fixture well-formed-text.api)', function () {
  this.timeout(30_000);
  const server = useServer(fixture('well-formed-text.api'));
  const send = (method: string, path: string, body: string | Uint8Array, contentType: string): Promise<HttpResponse> =>
    request(server.url, method, path, { body, headers: { 'Content-Type': contentType } });
  const total = async (): Promise<number> => (await request(server.url, 'GET', '/notes')).json.totalItems as number;
  const expect400 = (r: HttpResponse, what: string): void => {
    expect(r.status, `${what}: ${r.text}`).to.equal(400);
    expect(r.headers.get('content-type'), what).to.equal(PROBLEM_JSON);
  };
  let iri: string;

  before(async () => {
    const created = await send('POST', '/notes', `{"text": ${PAIR}}`, 'application/ld+json');
    expect(created.status, created.text).to.equal(201);
    expect(created.json.text).to.equal('\u{1F600}');
    iri = created.json['@id'] as string;
  });

  it('answers 400 to a lone surrogate in every REST body, in a value or a key, and stores nothing', async () => {
    const before = await total();
    const cases: [string, string, string, string][] = [
      ['POST', '/notes', 'application/ld+json', `{"text": ${LONE}}`],
      ['POST', '/notes', 'application/json', `{"text": ${LONE_LOW}}`],
      ['POST', '/notes', 'application/ld+json', `{${LONE}: "key"}`],
      ['POST', '/notes', 'application/vnd.api+json', `{"data": {"type": "Note", "attributes": {"text": ${LONE}}}}`],
      ['POST', '/notes', 'application/ld+json', `[{"text": "fine"}, {"text": ${LONE}}]`],
      ['PUT', iri, 'application/ld+json', `{"text": ${LONE}}`],
      ['PATCH', iri, 'application/merge-patch+json', `{"text": ${LONE}}`],
    ];
    for (const [method, path, type, body] of cases)
      expect400(await send(method, path, body, type), `${method} ${type} ${body}`);
    expect(await total()).to.equal(before);
    expect((await request(server.url, 'GET', iri)).json.text).to.equal('\u{1F600}');
  });

  it('answers 400 to bytes that are not UTF-8 on every face', async () => {
    const bad = (prefix: string, suffix: string): Uint8Array =>
      Buffer.concat([Buffer.from(prefix), Buffer.from([0xed, 0xa0, 0xbd]), Buffer.from(suffix)]); // an encoded surrogate
    expect400(await send('POST', '/notes', bad('{"text": "', '"}'), 'application/ld+json'), 'REST');
    expect400(await send('PATCH', iri, bad('{"text": "', '"}'), 'application/merge-patch+json'), 'PATCH');
    expect400(
      await send(
        'POST',
        '/graphql',
        bad('{"query": "{ __typename }", "variables": {"t": "', '"}}'),
        'application/json',
      ),
      'GraphQL',
    );
    expect400(
      await send(
        'POST',
        '/mcp',
        bad('{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"x": "', '"}}'),
        'application/json',
      ),
      'MCP',
    );
  });

  it('answers 400 to a lone surrogate in GraphQL variables and stores nothing; a pair is stored', async () => {
    const before = await total();
    const mutation = 'mutation($t: String) { createNote(input: { text: $t }) { note { text } } }';
    const refused = await request(server.url, 'POST', '/graphql', {
      headers: { 'Content-Type': 'application/json' },
      body: `{"query": ${JSON.stringify(mutation)}, "variables": {"t": ${LONE}}}`,
    });
    expect400(refused, 'GraphQL');
    expect(await total()).to.equal(before);
    const stored = await request(server.url, 'POST', '/graphql', {
      headers: { 'Content-Type': 'application/json' },
      body: `{"query": ${JSON.stringify(mutation)}, "variables": {"t": ${PAIR}}}`,
    });
    expect(stored.json.data.createNote.note.text).to.equal('\u{1F600}');
  });

  it('answers 400 to a lone surrogate in MCP tool arguments and stores nothing', async () => {
    const before = await total();
    const call = `{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "post_note", "arguments": {"body": {"text": ${LONE}}}}}`;
    const refused = await request(server.url, 'POST', '/mcp', {
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: call,
    });
    expect400(refused, 'MCP');
    expect(await total()).to.equal(before);
    // The SDK client's well-formed call goes through.
    const client = new Client({ name: 'apidsl-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    try {
      const result = await client.callTool({ name: 'post_note', arguments: { body: { text: '\u{1F600}' } } });
      expect(result.isError, JSON.stringify(result)).to.not.equal(true);
    } finally {
      await client.close();
    }
    expect(await total()).to.equal(before + 1);
  });
});
