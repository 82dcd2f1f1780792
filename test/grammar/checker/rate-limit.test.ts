/**
 * `apidsl check` on rate limits: the `rate_limit` settings of config and the `rateLimit` option of a resource
 * or an operation (an interval "N second(s)|minute(s)|hour(s)", `by` ip or user, a positive limit, `false`,
 * trusted proxies as addresses or CIDR ranges), and a `rateLimit` that limits nothing.
 */
import { expect } from 'chai';
import { check } from '../../../grammar/checker/index.js';

/** `code: message` of every diagnostic of a file with `config` and a Book resource with `options`. */
function diagnostics(config: string, options = '', operation = 'GetCollection'): string[] {
  const text = `config { ${config} }
resource Book {
  ${options}
  properties { id: int { identifier: true } }
  operations { ${operation} }
}
`;
  return check(text).all.map((d) => `${d.code}: ${d.message}`);
}

describe('checker: rate limits', () => {
  it('accepts a complete rate_limit block and the option on a resource or an operation', () => {
    const config =
      'rate_limit { limit: 100, interval: "1 minute", by: "ip", trusted_proxies: ["127.0.0.1", "10.0.0.0/8", "::1", "fd00::/8"] }';
    expect(diagnostics(config, 'rateLimit: { limit: 10, interval: "1 second", by: "ip" }')).to.deep.equal([]);
    expect(diagnostics(config, '', 'GetCollection { rateLimit: { interval: "2 hours" } }')).to.deep.equal([]);
    expect(diagnostics(config, 'rateLimit: false', 'Get { rateLimit: { limit: 5 } }')).to.deep.equal([]);
    expect(diagnostics('rate_limit { interval: "30 seconds" }', '', 'Get { rateLimit: { limit: 5 } }')).to.deep.equal(
      [],
    );
  });

  it('refuses an interval not written "N second(s)|minute(s)|hour(s)"', () => {
    expect(diagnostics('rate_limit { limit: 1, interval: "1 min" }')).to.deep.equal([
      `invalid-value: setting 'rate_limit.interval' must be an interval "N second(s)|minute(s)|hour(s)", not "1 min"`,
    ]);
    expect(diagnostics('', 'rateLimit: { limit: 1, interval: "0 seconds" }')).to.deep.equal([
      `invalid-value: 'interval' must be an interval "N second(s)|minute(s)|hour(s)", not "0 seconds"`,
    ]);
    expect(diagnostics('', 'rateLimit: { limit: 1, interval: 60 }')).to.deep.equal([
      `invalid-value: 'interval' expects an interval "N second(s)|minute(s)|hour(s)", not the number 60`,
    ]);
  });

  it('refuses a limit that is not a positive integer, and a by that is neither ip nor user', () => {
    expect(diagnostics('rate_limit { limit: 0 }')).to.deep.equal([
      "invalid-value: setting 'rate_limit.limit' must be 1 or more, not 0",
    ]);
    expect(diagnostics('', 'rateLimit: { limit: 2.5 }')).to.deep.equal([
      "invalid-value: 'limit' expects int (1 or more), not the number 2.5",
    ]);
    expect(diagnostics('rate_limit { limit: 1, by: "users" }')).to.deep.equal([
      `invalid-value: setting 'rate_limit.by' must be "ip" | "user", not 'users'; did you mean 'user'?`,
    ]);
  });

  it('takes false to turn a limit off, never true, and knows the fields of the option', () => {
    expect(diagnostics('', 'rateLimit: true')).to.have.length(1);
    expect(diagnostics('', 'rateLimit: true')[0]).to.match(/^invalid-value: 'rateLimit' expects false or object/);
    expect(diagnostics('', 'rateLimit: { limit: 1, window: "1 hour" }')).to.deep.equal([
      "unknown-option: unknown field of 'rateLimit' 'window'; expected limit, interval, by, for",
    ]);
  });

  it('refuses trusted proxies that are neither IP addresses nor CIDR ranges', () => {
    expect(diagnostics('rate_limit { trusted_proxies: ["10.0.0.0/8", "proxy.local", "10.0.0.0/33"] }')).to.deep.equal([
      `invalid-value: an item of setting 'rate_limit.trusted_proxies' must be an IP address or a CIDR range, not "proxy.local"`,
      `invalid-value: an item of setting 'rate_limit.trusted_proxies' must be an IP address or a CIDR range, not "10.0.0.0/33"`,
    ]);
  });

  it('warns about a rateLimit that gives no limit where config rate_limit gives none', () => {
    expect(diagnostics('', 'rateLimit: { interval: "1 second" }')).to.deep.equal([
      "option-ineffective: 'rateLimit' has no effect: it gives no 'limit' and config rate_limit has none (write rateLimit: { limit: 100, … })",
    ]);
    expect(diagnostics('rate_limit { limit: 10 }', 'rateLimit: { interval: "1 second" }')).to.deep.equal([]);
  });

  it('warns that by: "user" counts by address where nothing authenticates, not where a JWT is configured', () => {
    const warning =
      'option-ineffective: by: "user" counts every request by address here: nothing authenticates (config security has no jwt or authenticator)';
    expect(diagnostics('rate_limit { limit: 5, by: "user" }')).to.deep.equal([warning]);
    expect(diagnostics('', 'rateLimit: { limit: 5, by: "user" }')).to.deep.equal([warning]);
    const jwt = 'security { jwt { secret_env: "APIDSL_JWT_SECRET" } }';
    expect(diagnostics(`${jwt}, rate_limit { limit: 5, by: "user" }`, 'rateLimit: { by: "user" }')).to.deep.equal([]);
  });

  it('takes for: all, anonymous or authenticated, and warns that for: "authenticated" limits nothing unauthenticated', () => {
    const jwt = 'security { jwt { secret_env: "APIDSL_JWT_SECRET" } }';
    for (const caller of ['all', 'anonymous', 'authenticated'])
      expect(diagnostics(jwt, `rateLimit: { limit: 5, for: "${caller}" }`), caller).to.deep.equal([]);
    expect(diagnostics('', 'rateLimit: { limit: 5, for: "anonymous" }')).to.deep.equal([]);
    expect(diagnostics('', 'rateLimit: { limit: 5, for: "authenticated" }')).to.deep.equal([
      'option-ineffective: for: "authenticated" limits no request here: nothing authenticates (config security has no jwt or authenticator)',
    ]);
    expect(diagnostics(jwt, 'rateLimit: { limit: 5, for: "users" }')[0]).to.match(/^invalid-value: 'for' must be/);
  });
});
