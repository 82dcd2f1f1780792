/** The checker knows `cluster { redis }`: a Redis URL passes; anything the client could not connect to is an error. */
import { expect } from 'chai';
import { check } from '../../../grammar/checker/index.js';

const withCluster = (cluster: string): string =>
  `api "T" { version: "1" }\nconfig {\n  cluster { ${cluster} }\n}\nresource Note { properties { id: int { identifier: true } } }\n`;
const errors = (text: string): string[] =>
  check(text)
    .all.filter((d) => d.severity === 'error')
    .map((d) => `${d.code}: ${d.message}`);

describe('checker: cluster.redis', () => {
  it('accepts redis:// and rediss:// URLs, with credentials and a database number', () => {
    for (const url of ['redis://127.0.0.1:6379', 'rediss://user:secret@cache.example.com:6380/2', 'redis://redis'])
      expect(errors(withCluster(`redis: "${url}"`)), url).to.deep.equal([]);
  });

  it('refuses what is not a Redis URL, saying what to write', () => {
    const cases: [string, RegExp][] = [
      ['127.0.0.1:6379', /is not a URL; write redis:\/\/host:port/],
      ['not a url', /is not a URL; write redis:\/\/host:port/],
      ['http://cache:6379', /"http:" is not a Redis scheme/],
      ['redis://cache:6379/main', /"\/main" is not a database number/],
    ];
    for (const [url, message] of cases) {
      const found = errors(withCluster(`redis: "${url}"`));
      expect(found, url).to.have.length(1);
      expect(found[0], url).to.match(/^invalid-value: cluster\.redis: /);
      expect(found[0], url).to.match(message);
    }
  });

  it('refuses unknown cluster settings and a value that is not a string', () => {
    expect(errors(withCluster('redis: 6379'))).to.have.length(1);
    const unknown = errors(withCluster('nodes: 3'));
    expect(unknown).to.have.length(1);
    expect(unknown[0]).to.match(/^unknown-option: .*nodes/);
  });
});
