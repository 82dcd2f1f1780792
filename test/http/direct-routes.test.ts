/**
 * Static GET paths of a service that authenticates nobody, and its GraphQL endpoint, are answered by their route
 * directly, without CORS, authentication and the router (server/http/app.ts, docs/architecture.md). Access must be
 * exactly what the chain would give: every request anonymous, credentials or not; an operation's `security`
 * denies, an expression that fails at run time denies (never 2xx or 5xx), and a guarded property stays hidden.
 */
import { expect } from 'chai';
import { fixture, request, useServer } from './harness.js';
import { token } from './security-helpers.js';

describe('HTTP direct routes: access on a service without authentication', function () {
  this.timeout(60_000);
  const server = useServer(fixture('direct-routes.api'));
  let forged: string;
  before(async () => {
    const r = await request(server.url, 'POST', '/vaults', { body: { label: 'first', secret: 'launch codes' } });
    expect(r.status, r.text).to.equal(201);
    forged = await token({ sub: 'mallory', roles: ['ROLE_ADMIN'] });
  });

  for (const credentials of [undefined, 'a token nothing verifies'] as const) {
    const headers = (): Record<string, string> => (credentials ? { Authorization: `Bearer ${forged}` } : {});
    const who = credentials ? 'with a token nothing verifies' : 'without credentials';

    it(`${who}: an operation's security denies with 401`, async () => {
      const r = await request(server.url, 'GET', '/locked-vaults', { headers: headers() });
      expect(r.status, r.text).to.equal(401);
      expect(r.json).to.not.have.property('member');
    });

    it(`${who}: an expression that fails at run time denies with 401, not 2xx or 5xx`, async () => {
      const r = await request(server.url, 'GET', '/broken-vaults', { headers: headers() });
      expect(r.status, r.text).to.equal(401);
      expect(r.json).to.not.have.property('member');
    });

    it(`${who}: a guarded property stays hidden in the page`, async () => {
      const r = await request(server.url, 'GET', '/vaults', { headers: headers() });
      expect(r.status, r.text).to.equal(200);
      expect(r.json.member.map((m: { label: string }) => m.label)).to.deep.equal(['first']);
      expect(r.json.member[0]).to.not.have.property('secret');
    });

    it(`${who}: a guarded property stays hidden in GraphQL, by POST and by GET`, async () => {
      const query = '{ vaults { edges { node { label secret } } } }';
      const posted = await request(server.url, 'POST', '/graphql', {
        headers: { ...headers(), 'Content-Type': 'application/json' },
        body: { query },
      });
      const got = await request(server.url, 'GET', `/graphql?query=${encodeURIComponent(query)}`, {
        headers: headers(),
      });
      for (const r of [posted, got]) {
        expect(r.status, r.text).to.equal(200);
        expect(r.json).to.deep.equal({ data: { vaults: { edges: [{ node: { label: 'first', secret: null } }] } } });
      }
    });
  }

  it('answered no request with 5xx', () => {
    expect(server.output()).not.to.match(/"status":5\d\d/);
  });
});
