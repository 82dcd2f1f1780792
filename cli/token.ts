/**
 * `apidsl token FILE.api --sub ID [--roles R1,R2] [--ttl 1h] [--claim k=v]…`: a JWT the file's service
 * accepts, signed with the shared secret of `security { jwt { secret_env } }` (read from that
 * environment variable), with the configured issuer, audience and roles claim. For trying a secured
 * service with curl, and for tests. It never reads a private key: files verified by a public key or a
 * JWKS get their tokens from their identity provider.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { SignJWT, type JWTPayload } from 'jose';
import * as A from '../grammar/ast.js';
import { check } from '../grammar/checker/index.js';
import { HMAC_ALGORITHMS, shortSecretWarning } from '../grammar/catalogue/security-settings.js';
import { configEntry } from '../grammar/model.js';
import { toText } from './report.js';

export interface TokenCliOptions {
  sub: string;
  roles?: string;
  ttl: string;
  claim: string[];
}

class TokenRefused extends Error {}

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/** `90`, `90s`, `15m`, `1h`, `7d` → seconds. */
function seconds(ttl: string): number {
  const m = /^(\d+)\s*([smhd]?)$/.exec(ttl.trim());
  const value = m ? Number(m[1]) * UNITS[m[2] || 's'] : NaN;
  if (!Number.isSafeInteger(value) || value <= 0)
    throw new TokenRefused(`--ttl "${ttl}" is not a duration such as 90s, 15m, 1h or 7d`);
  return value;
}

/** `k=v`: the value as JSON when it parses (`n=3`, `admin=true`, `tags=["a"]`), else as a string. */
function claimOf(text: string): [string, unknown] {
  const eq = text.indexOf('=');
  if (eq <= 0) throw new TokenRefused(`--claim "${text}" is not key=value`);
  const raw = text.slice(eq + 1);
  try {
    return [text.slice(0, eq), JSON.parse(raw)];
  } catch {
    return [text.slice(0, eq), raw];
  }
}

export async function runToken(file: string, opts: TokenCliOptions): Promise<number> {
  try {
    process.stdout.write(`${await mint(file, opts)}\n`);
    return 0;
  } catch (e) {
    if (!(e instanceof TokenRefused)) throw e;
    process.stderr.write(`apidsl token: ${e.message}\n`);
    return 1;
  }
}

async function mint(file: string, opts: TokenCliOptions): Promise<string> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new TokenRefused(`cannot read ${file}: ${(e as Error).message}`);
  }
  const result = check(text, { baseDir: resolve(file, '..') });
  if (result.all.some((d) => d.severity === 'error')) {
    process.stderr.write(`${toText({ file, text, lines: result.lines, diagnostics: result.all })}\n`);
    throw new TokenRefused(`${file} has errors`);
  }
  const setting = (name: string): unknown =>
    A.toPlain(configEntry(result.model.config, `security.jwt.${name}`)?.value) ?? undefined;
  const secretEnv = setting('secret_env');
  if (typeof secretEnv !== 'string') {
    throw new TokenRefused(
      `${file} configures no shared secret (config { security { jwt { secret_env: "…" } } }); ` +
        'tokens for a public key or a JWKS come from the identity provider that holds the private key',
    );
  }
  const secret = process.env[secretEnv];
  if (!secret)
    throw new TokenRefused(
      `the environment variable ${secretEnv} is not set: it holds the shared secret that signs the tokens of ${file}`,
    );
  const configured = setting('algorithms');
  const algorithm = Array.isArray(configured)
    ? configured.find((a): a is string => (HMAC_ALGORITHMS as readonly unknown[]).includes(a))
    : 'HS256';
  if (!algorithm)
    throw new TokenRefused(
      `security.jwt.algorithms of ${file} allows no HS algorithm, so no token can be signed with the shared secret`,
    );
  const weakSecret = shortSecretWarning(secretEnv, secret, [algorithm]);
  if (weakSecret) process.stderr.write(`apidsl token: warning: ${weakSecret}\n`);

  const payload: JWTPayload = {};
  for (const c of opts.claim) {
    const [key, value] = claimOf(c);
    payload[key] = value;
  }
  const rolesClaim = setting('roles_claim');
  const userClaim = setting('user_claim');
  if (opts.roles !== undefined)
    payload[typeof rolesClaim === 'string' ? rolesClaim : 'roles'] = opts.roles
      .split(',')
      .map((r) => r.trim())
      .filter(Boolean);
  payload[typeof userClaim === 'string' ? userClaim : 'sub'] = opts.sub;
  const issuedAt = Math.floor(Date.now() / 1000);
  const jwt = new SignJWT(payload)
    .setProtectedHeader({ alg: algorithm, typ: 'JWT' })
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + seconds(opts.ttl));
  const issuer = setting('issuer');
  const audience = setting('audience');
  if (typeof issuer === 'string') jwt.setIssuer(issuer);
  if (typeof audience === 'string') jwt.setAudience(audience);
  return jwt.sign(new TextEncoder().encode(secret));
}
