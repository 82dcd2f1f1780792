/**
 * Authentication over real HTTP: Bearer JWTs (HS* from an environment secret, RS/PS/ES/EdDSA from a
 * PEM key, a local JWKS selected by kid), every reason a token is rejected (401 `invalid_token` on any
 * route, never anonymous), `alg: none` and algorithm confusion, leeway, roles as an array or a string,
 * the role hierarchy, and a custom authenticator (fail closed when it throws).
 */
import { expect } from 'chai';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT, exportJWK } from 'jose';
import {
  PROBLEM_JSON,
  request,
  serveExpectingExit,
  startServer,
  type HttpResponse,
  type RunningServer,
  useServer,
} from './harness.js';
import { as, AUDIENCE, ISSUER, SECRET, securityFixture, token } from './security-helpers.js';

const INVALID = 'Bearer error="invalid_token"';

function expectInvalidToken(r: HttpResponse): void {
  expect(r.status, r.text).to.equal(401);
  expect(r.headers.get('www-authenticate')).to.equal(INVALID);
  expect(r.headers.get('content-type')).to.equal(PROBLEM_JSON);
  expect(r.json.status).to.equal(401);
}

const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A guarded resource behind the given `jwt { … }` settings, in a fresh directory with extra files. */
function apiWith(jwt: string, files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'apidsl-auth-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const file = join(dir, 'api.api');
  writeFileSync(
    file,
    `config { security { jwt { ${jwt} } } }
resource Thing {
  security: "is_granted('ROLE_USER')"
  properties { id: int, name: string }
}
`,
  );
  return file;
}

const signWith = (key: KeyObject | Uint8Array, alg: string, kid?: string, sub = 'alice'): Promise<string> =>
  new SignJWT({ roles: ['ROLE_USER'] })
    .setProtectedHeader({ alg, ...(kid ? { kid } : {}) })
    .setSubject(sub)
    .setExpirationTime('1h')
    .sign(key);

describe('security: Bearer JWT with a shared secret (fixture security/books.api)', () => {
  const server = useServer(securityFixture('books.api'));

  it('a valid token is accepted; the same request without one is anonymous (401 with a plain Bearer challenge)', async () => {
    const ok = await as(await token({ sub: 'alice', roles: ['ROLE_USER'] }), server.url, 'GET', '/books');
    expect(ok.status, ok.text).to.equal(200);
    const anonymous = await as(undefined, server.url, 'GET', '/books');
    expect(anonymous.status).to.equal(401);
    expect(anonymous.headers.get('www-authenticate')).to.equal('Bearer');
  });

  it('a token with a bad signature answers 401 invalid_token on every route, public ones and unknown paths included', async () => {
    const forged = await token({
      sub: 'alice',
      roles: ['ROLE_ADMIN'],
      key: new TextEncoder().encode(`${SECRET}-not-it`),
    });
    for (const path of ['/', '/books', '/books/1', '/docs.json', '/contexts/Book', '/no/such/route']) {
      expectInvalidToken(await as(forged, server.url, 'GET', path));
    }
    expectInvalidToken(await as(forged, server.url, 'POST', '/notes', { body: { owner: 'x', text: 'y' } }));
  });

  it('expired tokens are rejected, but the configured leeway (30 s) is accepted', async () => {
    const r = await as(await token({ sub: 'alice', roles: ['ROLE_USER'], exp: -120 }), server.url, 'GET', '/books');
    expectInvalidToken(r);
    expect(r.json.detail).to.equal('The token has expired.');
    const withinLeeway = await as(
      await token({ sub: 'alice', roles: ['ROLE_USER'], exp: -10 }),
      server.url,
      'GET',
      '/books',
    );
    expect(withinLeeway.status, withinLeeway.text).to.equal(200);
  });

  it('a token not valid yet is rejected beyond the leeway and accepted within it', async () => {
    expectInvalidToken(
      await as(await token({ sub: 'alice', roles: ['ROLE_USER'], nbf: 120 }), server.url, 'GET', '/books'),
    );
    const r = await as(await token({ sub: 'alice', roles: ['ROLE_USER'], nbf: 10 }), server.url, 'GET', '/books');
    expect(r.status, r.text).to.equal(200);
  });

  it('a wrong or missing issuer, a wrong or missing audience are rejected', async () => {
    for (const options of [{ iss: 'https://evil.example' }, { iss: null }, { aud: 'another-api' }, { aud: null }]) {
      expectInvalidToken(
        await as(await token({ sub: 'alice', roles: ['ROLE_USER'], ...options }), server.url, 'GET', '/books'),
      );
    }
  });

  it('a token without the user claim (sub) is rejected', async () => {
    expectInvalidToken(await as(await token({ roles: ['ROLE_USER'] }), server.url, 'GET', '/books'));
  });

  it('malformed Authorization headers and other schemes are rejected, never treated as anonymous', async () => {
    for (const header of [
      'Bearer',
      'Bearer ',
      'Bearer a b',
      'Bearer not-a-jwt',
      'Bearer a.b.c',
      'Basic YWxpY2U6c2VjcmV0',
      'Token abc',
      'Bearer\ttab',
    ]) {
      const r = await request(server.url, 'GET', '/', { headers: { Authorization: header } });
      expectInvalidToken(r);
    }
  });

  it('alg "none" is rejected even with a valid payload', async () => {
    const exp = Math.floor(Date.now() / 1000) + 3600;
    const payload = b64({ sub: 'root', roles: ['ROLE_ADMIN'], iss: ISSUER, aud: AUDIENCE, exp });
    for (const alg of ['none', 'None', 'NONE']) {
      expectInvalidToken(await as(`${b64({ alg, typ: 'JWT' })}.${payload}.`, server.url, 'GET', '/books'));
    }
  });

  it('HS384 and HS512 with the same secret are accepted; an RS256 header is not', async () => {
    for (const alg of ['HS384', 'HS512']) {
      const r = await as(await token({ sub: 'alice', roles: ['ROLE_USER'], alg }), server.url, 'GET', '/books');
      expect(r.status, `${alg}: ${r.text}`).to.equal(200);
    }
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const rs = await new SignJWT({ roles: ['ROLE_USER'] })
      .setProtectedHeader({ alg: 'RS256' })
      .setSubject('alice')
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setExpirationTime('1h')
      .sign(privateKey);
    expectInvalidToken(await as(rs, server.url, 'GET', '/books'));
  });

  it('roles given as a space-separated string count as roles', async () => {
    const r = await as(await token({ sub: 'bob', roles: 'ROLE_GUEST ROLE_USER' }), server.url, 'GET', '/books');
    expect(r.status, r.text).to.equal(200);
  });

  it('roles of another type carry no role (the user is authenticated: 403, not 401)', async () => {
    const r = await as(await token({ sub: 'bob', roles: { ROLE_USER: true } }), server.url, 'GET', '/books');
    expect(r.status, r.text).to.equal(403);
  });

  it('the role hierarchy is transitive (ROLE_ADMIN → ROLE_EDITOR → ROLE_USER) and a cycle in it is harmless', async () => {
    const admin = await as(await token({ sub: 'root', roles: ['ROLE_ADMIN'] }), server.url, 'GET', '/books');
    expect(admin.status, admin.text).to.equal(200);
    const loop = await as(await token({ sub: 'loop', roles: ['ROLE_LOOP_A'] }), server.url, 'GET', '/books');
    expect(loop.status, loop.text).to.equal(200);
    const lower = await as(await token({ sub: 'erin', roles: ['ROLE_EDITOR'] }), server.url, 'DELETE', '/books/1');
    expect(lower.status, 'an editor does not hold ROLE_ADMIN').to.equal(403);
  });
});

describe('security: Bearer JWT verified with a PEM public key or a JWKS', () => {
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const ed = generateKeyPairSync('ed25519');
  const pem = (k: KeyObject): string => k.export({ type: 'spki', format: 'pem' }) as string;
  const servers: RunningServer[] = [];
  const start = async (file: string): Promise<RunningServer> => {
    const s = await startServer(file);
    servers.push(s);
    return s;
  };
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
  });

  it('RSA PEM: RS256 and PS256 tokens are accepted; HS256 signed with the public key (algorithm confusion) is rejected', async () => {
    const s = await start(apiWith('public_key: "./public.pem"', { 'public.pem': pem(rsa.publicKey) }));
    for (const alg of ['RS256', 'PS256', 'RS512']) {
      const r = await as(await signWith(rsa.privateKey, alg), s.url, 'GET', '/things');
      expect(r.status, `${alg}: ${r.text}`).to.equal(200);
    }
    const confused = await signWith(new TextEncoder().encode(pem(rsa.publicKey)), 'HS256');
    expectInvalidToken(await as(confused, s.url, 'GET', '/things'));
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
    expectInvalidToken(await as(await signWith(other.privateKey, 'RS256'), s.url, 'GET', '/things'));
  });

  it('EC and Ed25519 PEM keys verify ES256 and EdDSA tokens', async () => {
    const es = await start(apiWith('public_key: "./ec.pem"', { 'ec.pem': pem(ec.publicKey) }));
    expect((await as(await signWith(ec.privateKey, 'ES256'), es.url, 'GET', '/things')).status).to.equal(200);
    expectInvalidToken(await as(await signWith(rsa.privateKey, 'RS256'), es.url, 'GET', '/things'));
    const eddsa = await start(apiWith('public_key: "./ed.pem"', { 'ed.pem': pem(ed.publicKey) }));
    expect((await as(await signWith(ed.privateKey, 'EdDSA'), eddsa.url, 'GET', '/things')).status).to.equal(200);
  });

  it('JWKS: the kid selects the key; an unknown kid, or a kid naming another key than the signer, is rejected', async () => {
    const keys = [
      { ...(await exportJWK(rsa.publicKey)), kid: 'rsa-1', alg: 'RS256', use: 'sig' },
      { ...(await exportJWK(ec.publicKey)), kid: 'ec-1', alg: 'ES256', use: 'sig' },
    ];
    const s = await start(apiWith('jwks: "./jwks.json", leeway: 5', { 'jwks.json': JSON.stringify({ keys }) }));
    expect((await as(await signWith(rsa.privateKey, 'RS256', 'rsa-1'), s.url, 'GET', '/things')).status).to.equal(200);
    expect((await as(await signWith(ec.privateKey, 'ES256', 'ec-1'), s.url, 'GET', '/things')).status).to.equal(200);
    expectInvalidToken(await as(await signWith(rsa.privateKey, 'RS256', 'rsa-2'), s.url, 'GET', '/things'));
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
    expectInvalidToken(await as(await signWith(other.privateKey, 'RS256', 'rsa-1'), s.url, 'GET', '/things'));
    const confused = await signWith(new TextEncoder().encode(JSON.stringify(keys[0])), 'HS256', 'rsa-1');
    expectInvalidToken(await as(confused, s.url, 'GET', '/things'));
  });

  it('with the secret variable unset, serve warns and rejects every token (fail closed)', async () => {
    const s = await start(apiWith('secret_env: "APIDSL_TEST_SURELY_UNSET_SECRET"'));
    expect(s.output()).to.contain('APIDSL_TEST_SURELY_UNSET_SECRET (security.jwt.secret_env) is not set');
    expectInvalidToken(
      await as(await token({ sub: 'alice', roles: ['ROLE_USER'], iss: null, aud: null }), s.url, 'GET', '/things'),
    );
    const anonymous = await as(undefined, s.url, 'GET', '/things');
    expect(anonymous.status).to.equal(401);
    expect(anonymous.headers.get('www-authenticate')).to.equal('Bearer');
  });

  it('a token accepted before is still rejected once it expires, and a forged twin of it is never accepted', async function () {
    this.timeout(40_000);
    const s = await start(apiWith('secret_env: "APIDSL_TEST_JWT_SECRET"'));
    // Long enough for the four requests before it expires on a loaded machine; the test then waits it out.
    const shortLived = await token({ sub: 'alice', roles: ['ROLE_USER'], iss: null, aud: null, exp: 10 });
    for (let i = 0; i < 3; i++) expect((await as(shortLived, s.url, 'GET', '/things')).status).to.equal(200);
    // The same token text with another signature (a remembered token is matched on its whole text).
    const [head, body] = shortLived.split('.');
    const forged = `${head}.${body}.${Buffer.alloc(32, 1).toString('base64url')}`;
    expectInvalidToken(await as(forged, s.url, 'GET', '/things'));
    const { exp } = JSON.parse(Buffer.from(body, 'base64url').toString()) as { exp: number };
    await new Promise((resolve) => setTimeout(resolve, exp * 1000 - Date.now() + 100));
    const expired = await as(shortLived, s.url, 'GET', '/things');
    expectInvalidToken(expired);
    expect(expired.json.detail).to.equal('The token has expired.');
  });

  it('serve refuses to start when the key file is not a key', async () => {
    const garbage = await serveExpectingExit(apiWith('public_key: "./public.pem"', { 'public.pem': 'not a key' }));
    expect(garbage.code, garbage.output).to.equal(1);
    expect(garbage.output).to.match(/does not hold a PEM public key/);
  });
});

describe('security: a custom authenticator (fixture security/keys.api)', () => {
  const server = useServer(securityFixture('keys.api'));

  const withKey = (key: string | undefined, path: string): Promise<HttpResponse> =>
    request(server.url, 'GET', path, { headers: key ? { 'X-Api-Key': key } : {} });

  it('the user it returns is authenticated, with its roles and its fields as claims', async () => {
    const r = await withKey('alice-key', '/gadgets');
    expect(r.status, r.text).to.equal(200);
    const team = await withKey('alice-key', '/gadgets/team');
    expect(team.status, team.text).to.equal(200);
    expect(team.json.name).to.equal('alice/blue');
    const otherTeam = await withKey('bob-key', '/gadgets/team');
    expect(otherTeam.status, otherTeam.text).to.equal(403);
  });

  it('null means anonymous (401 with a plain Bearer challenge when a guard denies)', async () => {
    const r = await withKey(undefined, '/gadgets');
    expect(r.status).to.equal(401);
    expect(r.headers.get('www-authenticate')).to.equal('Bearer');
    expect((await withKey(undefined, '/')).status).to.equal(200);
  });

  it('fails closed: an authenticator that throws, or returns a user without identifier, answers 401 invalid_token', async () => {
    expectInvalidToken(await withKey('boom', '/gadgets'));
    expectInvalidToken(await withKey('boom', '/'));
    expectInvalidToken(await withKey('no-identifier', '/gadgets'));
  });
});
