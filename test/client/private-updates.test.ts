/**
 * `subscribe()` of a resource whose updates are private and come as a custom SSE event type (fixture
 * http/mercure.api: `mercure: { private: true, type: "secret" }`), on the suite's store: a TypeScript program using
 * the generated client, compiled under `strict`, receives an update with a subscriber JWT given as `token`.
 */
import { expect } from 'chai';
import { EventSource } from 'eventsource';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { clientPackage } from '../../server/client/package.js';
import { loadApi } from '../../server/load-api.js';
import { useServer } from '../http/harness.js';
import { mercureJwt } from '../http/sse-client.js';
import { fromRoot } from '../support/paths.js';
import { compile } from '../support/typescript.js';

const FIXTURE = fromRoot('test/fixtures/http/mercure.api');
const SUBSCRIBER_KEY = 'client-subscriber-key-0123456789abcdef';

const PROGRAM = `import { createClient, type ClientOptions } from './sdk/index.js';

export async function secret(baseUrl: string, source: ClientOptions['EventSource'], token: string) {
  const api = createClient({ baseUrl, EventSource: source });
  let received!: (text: string | undefined) => void;
  const update = new Promise<string | undefined>((resolve) => (received = resolve));
  const stop = await api.secrets.subscribe('/secrets/{id}', (data) => received('text' in data ? data.text : undefined), {
    token: async () => token,
  });
  await api.secrets.create({ text: 'psst' });
  const text = await update;
  stop();
  return text;
}
`;

describe('apidsl client: private updates of a custom event type (fixture http/mercure.api)', function () {
  this.timeout(120_000);
  before(() => {
    process.env.MERCURE_SUBSCRIBER_JWT_KEY = SUBSCRIBER_KEY;
  });
  const server = useServer(FIXTURE);
  after(() => {
    delete process.env.MERCURE_SUBSCRIBER_JWT_KEY;
  });

  it('receives a private update with the subscriber JWT given as token', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apidsl-client-private-'));
    mkdirSync(join(dir, 'sdk'));
    for (const { path, text } of clientPackage(await loadApi(FIXTURE))) writeFileSync(join(dir, 'sdk', path), text);
    writeFileSync(join(dir, 'program.ts'), PROGRAM);
    expect(compile([join(dir, 'program.ts')], dir).all).to.deep.equal([]);
    const program = (await import(pathToFileURL(join(dir, 'program.js')).href)) as {
      secret(baseUrl: string, source: unknown, token: string): Promise<string | undefined>;
    };
    const token = await mercureJwt(SUBSCRIBER_KEY, { subscribe: ['/secrets/{id}'] });
    expect(await program.secret(server.url, EventSource, token)).to.equal('psst');
  });
});
