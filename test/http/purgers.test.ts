/**
 * The purge request formats of server/caching/purgers.ts, sent to a local server playing the endpoint: Souin's
 * and Varnish xkey's PURGE with their tag headers, batches that keep headers under the cache's limit, and a
 * silent endpoint given up on after the timeout.
 */
import { expect } from 'chai';
import pino from 'pino';
import { purger } from '../../server/caching/purgers.js';
import { purgeEndpoint } from './purge-endpoint.js';

const silent = pino({ level: 'silent' });
const settings = (purgerName: 'souin' | 'varnish-xkey' | 'varnish-ban', urls: string[], timeout = 2000) => ({
  enabled: true,
  urls,
  purger: purgerName,
  tagsHeader: 'Cache-Tags',
  timeout,
});

describe('purge requests to external caches', () => {
  it('souin: PURGE with Surrogate-Key, tags joined by ", "', async () => {
    const endpoint = await purgeEndpoint('ok');
    try {
      await purger(settings('souin', [endpoint.url]), silent)!(['/books', '/books/1']);
      expect(endpoint.received).to.deep.equal([{ method: 'PURGE', headers: endpoint.received[0].headers }]);
      expect(endpoint.received[0].headers['surrogate-key']).to.equal('/books, /books/1');
    } finally {
      await endpoint.close();
    }
  });

  it('varnish-xkey: PURGE with xkey, tags joined by spaces; every URL is purged', async () => {
    const [a, b] = await Promise.all([purgeEndpoint('ok'), purgeEndpoint('ok')]);
    try {
      await purger(settings('varnish-xkey', [a.url, b.url]), silent)!(['/books', '/books/1']);
      for (const endpoint of [a, b]) {
        expect(endpoint.received.map((r) => r.method)).to.deep.equal(['PURGE']);
        expect(endpoint.received[0].headers.xkey).to.equal('/books /books/1');
      }
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('many tags go in several requests, each header under the limit (1500 bytes for Souin), none lost', async () => {
    const endpoint = await purgeEndpoint('ok');
    try {
      const tags = Array.from({ length: 300 }, (_, i) => `/books/${i + 1}`);
      await purger(settings('souin', [endpoint.url]), silent)!(tags);
      expect(endpoint.received.length).to.be.greaterThan(1);
      for (const r of endpoint.received) expect(r.headers['surrogate-key'].length).to.be.at.most(1500);
      expect(endpoint.received.flatMap((r) => r.headers['surrogate-key'].split(', '))).to.have.members(tags);
    } finally {
      await endpoint.close();
    }
  });

  it('an endpoint that never answers is given up on after the timeout, and the purge resolves', async () => {
    const endpoint = await purgeEndpoint('hang');
    try {
      await purger(settings('varnish-ban', [endpoint.url], 200), silent)!(['/books']);
      expect(endpoint.received.map((r) => r.method)).to.deep.equal(['BAN']);
    } finally {
      await endpoint.close();
    }
  });

  it('no purger without invalidation enabled or without URLs', () => {
    expect(purger({ ...settings('souin', ['http://127.0.0.1:9']), enabled: false }, silent)).to.equal(undefined);
    expect(purger(settings('souin', []), silent)).to.equal(undefined);
  });
});
