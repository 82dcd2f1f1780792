/**
 * `apidsl token`: the token it prints (claims, lifetime, algorithm) is accepted by `apidsl serve` for
 * the same file, and it refuses, with exit code 1 and a clear message, when it cannot sign.
 */
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { runCli } from '../support/cli.js';
import { startServer, useServer, type RunningServer } from './harness.js';
import { as, AUDIENCE, ISSUER, SECRET, securityFixture } from './security-helpers.js';

const BOOKS = securityFixture('books.api');

function mint(args: string[], env: NodeJS.ProcessEnv = {}): { status: number | null; token: string; stderr: string } {
  const r = runCli(['token', ...args], { env: { APIDSL_TEST_JWT_SECRET: SECRET, ...env } });
  return { status: r.status, token: r.stdout.trim(), stderr: r.stderr };
}

describe('apidsl token', () => {
  const tokens: Record<string, string> = {};
  before(async () => {
    // Minted before the server starts: a synchronous CLI run holds the test process meanwhile.
    tokens.user = mint([BOOKS, '--sub', 'alice', '--roles', 'ROLE_USER']).token;
    tokens.admin = mint([BOOKS, '--sub', 'root', '--roles', 'ROLE_ADMIN']).token;
    tokens.noRoles = mint([BOOKS, '--sub', 'alice']).token;
    tokens.other = mint([BOOKS, '--sub', 'alice', '--roles', 'ROLE_USER'], {
      APIDSL_TEST_JWT_SECRET: 'another-secret-another-secret-another-secret',
    }).token;
  });

  const server = useServer(BOOKS);

  it('prints an HS256 JWT with the user, roles, issuer, audience and a one-hour lifetime', () => {
    const r = mint([
      BOOKS,
      '--sub',
      'alice',
      '--roles',
      'ROLE_USER,ROLE_EDITOR',
      '--claim',
      'team=blue',
      '--claim',
      'level=3',
    ]);
    expect(r.status, r.stderr).to.equal(0);
    expect(r.token).to.match(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(decodeProtectedHeader(r.token).alg).to.equal('HS256');
    const claims = decodeJwt(r.token);
    expect(claims).to.include({ sub: 'alice', iss: ISSUER, aud: AUDIENCE, team: 'blue', level: 3 });
    expect(claims.roles).to.deep.equal(['ROLE_USER', 'ROLE_EDITOR']);
    expect(claims.exp! - claims.iat!).to.equal(3600);
  });

  it('the service of the same file accepts it, with its roles', async () => {
    expect((await as(tokens.user, server.url, 'GET', '/books')).status).to.equal(200);
    expect((await as(tokens.user, server.url, 'DELETE', '/books/1')).status).to.equal(403);
    expect((await as(tokens.admin, server.url, 'GET', '/secrets/5')).status).to.equal(404);
    expect((await as(tokens.noRoles, server.url, 'GET', '/books')).status).to.equal(403);
  });

  it('--ttl sets the lifetime; a duration it cannot read is refused', () => {
    const short = mint([BOOKS, '--sub', 'alice', '--ttl', '90s']);
    const claims = decodeJwt(short.token);
    expect(claims.exp! - claims.iat!).to.equal(90);
    expect(decodeJwt(mint([BOOKS, '--sub', 'a', '--ttl', '2d']).token).exp! - claims.iat!).to.be.within(172790, 172810);
    const bad = mint([BOOKS, '--sub', 'alice', '--ttl', 'soon']);
    expect(bad.status).to.equal(1);
    expect(bad.stderr).to.contain('--ttl "soon"');
  });

  it('a token signed with another secret is refused by the service', async () => {
    const r = await as(tokens.other, server.url, 'GET', '/books');
    expect(r.status).to.equal(401);
    expect(r.headers.get('www-authenticate')).to.equal('Bearer error="invalid_token"');
  });

  it('signs with the first HS algorithm of security.jwt.algorithms, in the configured claims', () => {
    const dir = mkdtempSync(join(tmpdir(), 'apidsl-token-'));
    const file = join(dir, 'api.api');
    writeFileSync(
      file,
      'config { security { jwt { secret_env: "APIDSL_TEST_JWT_SECRET", algorithms: ["HS512"], roles_claim: "scopes", user_claim: "uid" } } }\nresource Thing { properties { id: int } }\n',
    );
    const r = mint([file, '--sub', '42', '--roles', 'ROLE_A']);
    expect(r.status, r.stderr).to.equal(0);
    expect(decodeProtectedHeader(r.token).alg).to.equal('HS512');
    expect(decodeJwt(r.token)).to.deep.include({ uid: '42', scopes: ['ROLE_A'] });
    expect(decodeJwt(r.token)).not.to.have.property('iss');
  });

  it('refuses (exit 1, clear message) a file without a shared secret, an unset variable, a file with errors, no --sub', () => {
    const keys = mint([securityFixture('keys.api'), '--sub', 'alice']);
    expect(keys.status).to.equal(1);
    expect(keys.token).to.equal('');
    expect(keys.stderr).to.contain('configures no shared secret');
    const unset = mint([BOOKS, '--sub', 'alice'], { APIDSL_TEST_JWT_SECRET: '' });
    expect(unset.status).to.equal(1);
    expect(unset.stderr).to.contain('APIDSL_TEST_JWT_SECRET is not set');
    const dir = mkdtempSync(join(tmpdir(), 'apidsl-token-'));
    const broken = join(dir, 'broken.api');
    writeFileSync(broken, 'config { security { jwt { secret_env: 12 } } }\n');
    const errors = mint([broken, '--sub', 'a']);
    expect(errors.status).to.equal(1);
    expect(errors.stderr).to.contain('has errors');
    const noSub = mint([BOOKS]);
    expect(noSub.status).to.equal(1);
    expect(noSub.stderr).to.contain('--sub');
  });
});

describe('a shared secret shorter than its HS algorithm needs (RFC 7518 §3.2) is a warning of serve and token', () => {
  const dir = mkdtempSync(join(tmpdir(), 'apidsl-short-secret-'));
  /** A service whose secret is in APIDSL_TEST_SHORT_SECRET, verifying `algorithms` (all HS ones when left out). */
  const service = (algorithms?: string): string => {
    const file = join(dir, `short-${algorithms ?? 'all'}.api`);
    const list = algorithms ? `, algorithms: [${algorithms}]` : '';
    writeFileSync(
      file,
      `config { security { jwt { secret_env: "APIDSL_TEST_SHORT_SECRET"${list} } } }\n` +
        `resource Note { security: "is_granted('ROLE_USER')"\n  properties { id: int, text: string } }\n`,
    );
    return file;
  };
  /**
   * The server's output once its log of a request reached this process: stderr is written in order, so a
   * warning written at the start is in it by then (stdout, which carries the URL, is another pipe).
   */
  async function outputAfterARequest(running: RunningServer): Promise<string> {
    await as(undefined, running.url, 'GET', '/notes');
    for (let i = 0; i < 250 && !running.output().includes('"url":"/notes"'); i++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    return running.output();
  }
  const warning = /warning: the JWT secret in APIDSL_TEST_SHORT_SECRET is (\d+) bytes long; ([^(]*) \(RFC 7518 §3\.2/;

  it('apidsl token: below 32 bytes for HS256 (counted in UTF-8 bytes), still signing; none from 32 bytes', () => {
    const file = service('"HS256"');
    const short = runCli(['token', file, '--sub', 'ann', '--roles', 'ROLE_USER'], {
      env: { APIDSL_TEST_SHORT_SECRET: 'x'.repeat(31) },
    });
    expect(short.status, short.stderr).to.equal(0);
    expect(short.stdout.trim()).to.match(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(short.stderr).to.match(warning);
    expect(warning.exec(short.stderr)!.slice(1)).to.deep.equal(['31', 'HS256 needs 32']);
    for (const secret of ['x'.repeat(32), 'é'.repeat(16)]) {
      const ok = runCli(['token', file, '--sub', 'ann'], { env: { APIDSL_TEST_SHORT_SECRET: secret } });
      expect(ok.status, ok.stderr).to.equal(0);
      expect(ok.stderr).not.to.include('warning');
    }
    const multibyte = runCli(['token', file, '--sub', 'ann'], { env: { APIDSL_TEST_SHORT_SECRET: 'é'.repeat(15) } });
    expect(warning.exec(multibyte.stderr)?.slice(1)).to.deep.equal(['30', 'HS256 needs 32']);
  });

  for (const [algorithms, secret, needs, hint] of [
    ['"HS256"', 'too-short-secret', 'HS256 needs 32', ''],
    [undefined, 'a'.repeat(40), 'HS384 needs 48, HS512 needs 64', '(or keep security.jwt.algorithms to HS256)'],
  ] as const) {
    it(`apidsl serve (algorithms ${algorithms ?? 'all HS'}, ${secret.length} bytes): warns, and still verifies`, async () => {
      process.env.APIDSL_TEST_SHORT_SECRET = secret;
      const running = await startServer(service(algorithms));
      try {
        const output = await outputAfterARequest(running);
        expect(warning.exec(output)?.slice(1)).to.deep.equal([String(secret.length), needs]);
        expect(output).to.include(hint);
        const t = runCli(['token', service(algorithms), '--sub', 'ann', '--roles', 'ROLE_USER']).stdout.trim();
        expect((await as(t, running.url, 'GET', '/notes')).status).to.equal(200);
      } finally {
        await running.stop();
      }
    });
  }

  it('apidsl serve: a Mercure key shorter than 32 bytes (publisher or subscriber of the built-in hub) too', async () => {
    const file = join(dir, 'mercure.api');
    writeFileSync(
      file,
      'config { mercure { hub: "builtin" } }\nresource Note { mercure: true\n  properties { id: int } }\n',
    );
    const keys = { MERCURE_SUBSCRIBER_JWT_KEY: 'change-me', MERCURE_PUBLISHER_JWT_KEY: 'p'.repeat(32) };
    const saved = Object.fromEntries(Object.keys(keys).map((k) => [k, process.env[k]]));
    Object.assign(process.env, keys);
    const running = await startServer(file);
    try {
      const output = await outputAfterARequest(running);
      expect(output).to.match(/warning: the JWT secret in MERCURE_SUBSCRIBER_JWT_KEY is 9 bytes long; HS256 needs 32/);
      expect(output).not.to.include('MERCURE_PUBLISHER_JWT_KEY');
    } finally {
      await running.stop();
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it('apidsl serve with a long enough secret says nothing', async () => {
    process.env.APIDSL_TEST_SHORT_SECRET = 'b'.repeat(64);
    const running = await startServer(service());
    try {
      expect(await outputAfterARequest(running)).not.to.include('warning');
    } finally {
      await running.stop();
    }
  });
});
