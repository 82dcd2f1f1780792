/** `apidsl check` on `config { security { … } }`: key sources, key files, algorithms, types of the settings. */
import { expect } from 'chai';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { check } from '../../../grammar/checker/index.js';
import { runCli } from '../../support/cli.js';

const RESOURCE = 'resource Book { security: "is_granted(\'ROLE_USER\')", properties { id: int } }\n';

function dirWith(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'apidsl-check-security-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

/** The error messages of a config's security block, checked beside the given files. */
function errors(security: string, files: Record<string, string> = {}): string[] {
  const text = `config { security { ${security} } }\n${RESOURCE}`;
  return check(text, { baseDir: dirWith(files) })
    .all.filter((d) => d.severity === 'error')
    .map((d) => d.message);
}

const PEM = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({
  type: 'spki',
  format: 'pem',
}) as string;

describe('checker: config security settings', () => {
  it('a complete JWT configuration with a role hierarchy is clean', () => {
    const text = `config { security {
  jwt { secret_env: "APIDSL_JWT_SECRET", issuer: "https://id.example.com", audience: "books", roles_claim: "roles", user_claim: "sub", leeway: 30 }
  role_hierarchy { ROLE_ADMIN: ["ROLE_USER"] }
} }
${RESOURCE}`;
    expect(check(text).all.map((d) => d.message)).to.deep.equal([]);
  });

  it('a jwt block with no key source, or with two, is an error', () => {
    expect(errors('jwt { issuer: "x" }')).to.deep.equal([
      'security.jwt needs a key source: secret_env (HS256/384/512), public_key (a PEM file) or jwks (a JWKS file)',
    ]);
    expect(errors('jwt { secret_env: "S", public_key: "./k.pem" }', { 'k.pem': PEM })).to.deep.equal([
      'security.jwt has two key sources (secret_env and public_key): keep one',
    ]);
  });

  it('key files must exist and hold a PEM public key or a JWKS', () => {
    expect(errors('jwt { public_key: "./missing.pem" }')[0]).to.match(
      /^security\.jwt\.public_key: file '\.\/missing\.pem' does not exist/,
    );
    expect(errors('jwt { public_key: "./k.pem" }', { 'k.pem': 'garbage' })).to.deep.equal([
      "security.jwt.public_key: './k.pem' does not hold a PEM public key",
    ]);
    expect(errors('jwt { public_key: "./k.pem" }', { 'k.pem': PEM })).to.deep.equal([]);
    expect(errors('jwt { jwks: "./jwks.json" }', { 'jwks.json': '{"keys": []}' })[0]).to.contain('is not a JWKS');
    expect(errors('jwt { jwks: "./nope.json" }')[0]).to.contain('does not exist');
  });

  it('algorithms must fit the key source (no HS with a public key, only HS with a secret)', () => {
    expect(errors('jwt { public_key: "./k.pem", algorithms: ["HS256", "ES256"] }', { 'k.pem': PEM })).to.deep.equal([
      'security.jwt.algorithms: HS256 cannot be verified here: HS256 needs the shared secret (secret_env), not a public key',
    ]);
    expect(errors('jwt { secret_env: "S", algorithms: ["RS256"] }')).to.deep.equal([
      'security.jwt.algorithms: RS256 cannot be verified here: secret_env verifies only HS256, HS384 and HS512',
    ]);
    expect(errors('jwt { secret_env: "S", algorithms: ["HS999"] }')[0]).to.contain('must be');
  });

  it('settings are typed and unknown ones get the closest name', () => {
    expect(errors('jwt { secret_env: "S", leeway: -1 }')[0]).to.contain('0 or more');
    expect(errors('jwt { secret_env: "S", isuer: "x" }')[0]).to.contain("did you mean 'issuer'");
    expect(errors('role_hierarchy { ROLE_ADMIN: "ROLE_USER" }')[0]).to.contain('expects');
    expect(errors('voters: ["./missing.mjs#vote"]')[0]).to.contain('does not exist');
  });

  it('apidsl check exits 1 on such a file', () => {
    const dir = dirWith({
      'api.api': `config { security { jwt { secret_env: "S", jwks: "./j.json" } } }\n${RESOURCE}`,
    });
    const r = runCli(['check', join(dir, 'api.api')]);
    expect(r.status).to.equal(1);
    expect(r.stdout + r.stderr).to.contain('two key sources');
  });
});

describe('checker: a secret written in the file instead of its variable name', () => {
  const warnings = (config: string): { code: string; at: string; message: string }[] => {
    const text = `config { ${config} }\n${RESOURCE}`;
    return check(text)
      .all.filter((d) => d.severity === 'warning')
      .map((d) => ({ code: d.code, at: text.slice(d.range.start, d.range.end), message: d.message }));
  };

  for (const [config, path, value] of [
    ['security { jwt { secret_env: "my-super-secret" } }', 'security.jwt.secret_env', 'my-super-secret'],
    ['security { jwt { secret_env: "s3cr3t!" } }', 'security.jwt.secret_env', 's3cr3t!'],
    [
      'mercure { hub: "builtin", subscriber_jwt_secret_env: "change me" }',
      'mercure.subscriber_jwt_secret_env',
      'change me',
    ],
    ['mercure { hub: "builtin", publisher_jwt_secret_env: "abc.def" }', 'mercure.publisher_jwt_secret_env', 'abc.def'],
    [
      'mercure { hub: "https://hub.example/.well-known/mercure", publisher_jwt_env: "eyJhbGciOi.x.y" }',
      'mercure.publisher_jwt_env',
      'eyJhbGciOi.x.y',
    ],
  ]) {
    it(`${path}: ${JSON.stringify(value)} is a warning at the value`, () => {
      const found = warnings(config).filter((w) => w.code === 'secret-in-file');
      expect(found).to.have.length(1);
      expect(found[0].at).to.equal(JSON.stringify(value));
      expect(found[0].message).to.match(new RegExp(`^${path.replace(/\./g, '\\.')} names the environment variable`));
    });
  }

  it('a variable name is fine', () => {
    for (const name of ['APIDSL_JWT_SECRET', 'JWT_KEY_2', '_SECRET'])
      expect(
        warnings(`security { jwt { secret_env: "${name}" } }`).filter((w) => w.code === 'secret-in-file'),
      ).to.deep.equal([]);
  });
});
