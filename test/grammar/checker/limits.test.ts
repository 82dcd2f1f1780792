/** The checker knows the `trusted_hosts` and `server { … }` settings: valid values pass, others are errors. */
import { expect } from 'chai';
import { check } from '../../../grammar/checker/index.js';

const withConfig = (config: string): string =>
  `api "T" { version: "1" }\nconfig {\n${config}\n}\nresource Note { properties { id: int { identifier: true } } }\n`;
const errors = (text: string): string[] =>
  check(text)
    .all.filter((d) => d.severity === 'error')
    .map((d) => `${d.code}: ${d.message}`);

describe('checker: trusted_hosts and server limits', () => {
  it('accepts patterns and every server limit', () => {
    const text = withConfig(`trusted_hosts: ["^api\\\\.example\\\\.com$", "localhost"]
server { headers_timeout: 5000, request_timeout: 20000, keep_alive_timeout: 1000, max_connections: 64 }`);
    expect(errors(text)).to.deep.equal([]);
  });

  it('refuses a pattern that is no regular expression, naming it', () => {
    const found = errors(withConfig('trusted_hosts: ["^(api"]'));
    expect(found).to.have.length(1);
    expect(found[0]).to.match(/^invalid-value: invalid regular expression in trusted_hosts: .*\^\(api/);
  });

  it('refuses values out of range and unknown server settings', () => {
    expect(errors(withConfig('server { headers_timeout: 10 }'))).to.have.length(1);
    expect(errors(withConfig('server { max_connections: 0 }'))).to.have.length(1);
    const unknown = errors(withConfig('server { idle_timeout: 5 }'));
    expect(unknown).to.have.length(1);
    expect(unknown[0]).to.match(/^unknown-option: .*idle_timeout/);
  });
});
