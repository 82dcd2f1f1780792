/**
 * `config { security { … } }` resolved once at load: the JWT verifier (its key read now, its
 * algorithms pinned by the key type so that `alg: none` and algorithm confusion cannot pass),
 * the custom authenticator, the role hierarchy made transitive, the voters imported. A key file
 * that cannot be read, or no algorithm left, stops the start; an unset secret variable makes every
 * token invalid (the service starts, fails closed and says why).
 */
import { createPublicKey, createSecretKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
// jose is held at 5.x: its Node build verifies with node:crypto (about 10 µs per HS256 token here), where
// 6.x has only the Web Crypto path (50–80 µs), which halved the throughput of a guarded page (npm run bench).
// It is loaded only for a file with `security.jwt`: loading it costs every other start about 0.15 s of CPU.
import type * as Jose from 'jose';
import * as A from '../../grammar/ast.js';
import {
  EC_ALGORITHMS,
  HMAC_ALGORITHMS,
  OKP_ALGORITHMS,
  RSA_ALGORITHMS,
  shortSecretWarning,
} from '../../grammar/catalogue/security-settings.js';
import { SETTINGS } from '../../grammar/catalogue/index.js';
import { configEntry } from '../../grammar/model.js';
import { loadCode } from './code.js';

/** The JWT algorithm of each elliptic curve. */
const CURVE_ALGORITHMS = new Map([
  ['prime256v1', 'ES256'],
  ['secp384r1', 'ES384'],
  ['secp521r1', 'ES512'],
]);
import { Refusal } from '../refusal.js';
import type { CodeFunction, JwtMetadata, SecurityMetadata } from './types.js';
import { VerifiedTokens } from './verified-tokens.js';

/** A security setting that cannot work: `serve` refuses to start and prints the message. */
export class SecurityConfigError extends Refusal {}

const ASYMMETRIC = [...RSA_ALGORITHMS, ...EC_ALGORITHMS, ...OKP_ALGORITHMS];

export async function resolveSecurity(config: A.ObjectValue | undefined, baseDir: string): Promise<SecurityMetadata> {
  const get = <T>(path: string): T | undefined => {
    const value = A.toPlain(configEntry(config, `security.${path}`)?.value) as T | undefined | null;
    return value ?? (SETTINGS.find((s) => s.path === `security.${path}`)?.default as T | undefined);
  };
  const authenticatorRef = get<string>('authenticator');
  const voters: CodeFunction[] = [];
  for (const ref of get<string[]>('voters') ?? []) voters.push(await loadCode(ref, baseDir, 'security voter'));
  return {
    jwt: configEntry(config, 'security.jwt') ? jwtVerifier(get, baseDir, await import('jose')) : undefined,
    authenticator: authenticatorRef ? await loadCode(authenticatorRef, baseDir, 'security authenticator') : undefined,
    roleHierarchy: transitiveRoles(get<Record<string, string[]>>('role_hierarchy') ?? {}),
    voters,
  };
}

/** Each role → itself and every role it reaches through the hierarchy (a cycle just stops the walk). */
export function transitiveRoles(hierarchy: Record<string, string[]>): Map<string, readonly string[]> {
  const out = new Map<string, readonly string[]>();
  for (const role of Object.keys(hierarchy)) {
    const reached = new Set<string>([role]);
    const pending = [role];
    while (pending.length) {
      for (const next of hierarchy[pending.pop()!] ?? []) {
        if (typeof next === 'string' && !reached.has(next)) {
          reached.add(next);
          pending.push(next);
        }
      }
    }
    out.set(role, [...reached]);
  }
  return out;
}

type Getter = <T>(path: string) => T | undefined;

/** The key tokens are verified with, the algorithms it allows, and why it cannot be used (a secret not set). */
interface VerificationKey {
  key: Uint8Array | KeyObject | ReturnType<typeof Jose.createLocalJWKSet>;
  allowed: readonly string[];
  unusable?: string;
}

/** The key of `security.jwt`'s one key source: a shared secret's variable, a PEM public key or a JWKS file. */
function verificationKey(get: Getter, baseDir: string, jose: typeof Jose): VerificationKey {
  const secretEnv = get<string>('jwt.secret_env');
  const publicKey = get<string>('jwt.public_key');
  const jwks = get<string>('jwt.jwks');
  const sources = [secretEnv, publicKey, jwks].filter((s) => s !== undefined);
  if (sources.length !== 1) {
    throw new SecurityConfigError('security.jwt needs exactly one key source: secret_env, public_key or jwks');
  }
  const fileOf = (path: string): string => (isAbsolute(path) ? path : resolve(baseDir, path));
  if (secretEnv !== undefined) {
    const secret = process.env[secretEnv];
    return {
      // A key object made once: jose then does no key import per request.
      key: secret ? createSecretKey(Buffer.from(secret, 'utf8')) : new Uint8Array(),
      allowed: HMAC_ALGORITHMS,
      // Fail closed without refusing to load: `routes` and `openapi` need no secret, and `serve` says so.
      ...(secret
        ? {}
        : {
            unusable: `the environment variable ${secretEnv} (security.jwt.secret_env) is not set: every Bearer token is rejected`,
          }),
    };
  }
  if (publicKey !== undefined) {
    const file = fileOf(publicKey);
    let key: KeyObject;
    try {
      key = createPublicKey(readFileSync(file, 'utf8'));
    } catch (e) {
      throw new SecurityConfigError(
        `security.jwt.public_key: cannot read a PEM public key from ${file}: ${(e as Error).message}`,
      );
    }
    return { key, allowed: algorithmsOfKey(key) };
  }
  const file = fileOf(jwks!);
  try {
    const set = JSON.parse(readFileSync(file, 'utf8')) as Jose.JSONWebKeySet;
    // Symmetric keys have no place in a published key set: only signatures by private keys count.
    return { key: jose.createLocalJWKSet(set), allowed: ASYMMETRIC };
  } catch (e) {
    throw new SecurityConfigError(`security.jwt.jwks: cannot read a JWKS from ${file}: ${(e as Error).message}`);
  }
}

function jwtVerifier(get: Getter, baseDir: string, jose: typeof Jose): JwtMetadata {
  const secretEnv = get<string>('jwt.secret_env');
  const { key, allowed, unusable } = verificationKey(get, baseDir, jose);
  const configured = get<string[]>('jwt.algorithms');
  const algorithms = configured ? configured.filter((a) => allowed.includes(a)) : [...allowed];
  if (algorithms.length === 0) {
    throw new SecurityConfigError(
      `security.jwt.algorithms: none of ${configured!.join(', ')} can be verified with this key (it allows ${allowed.join(', ')})`,
    );
  }
  const secret = secretEnv !== undefined ? process.env[secretEnv] : undefined;
  const weakSecret = secret ? shortSecretWarning(secretEnv!, secret, algorithms) : undefined;
  const issuer = get<string>('jwt.issuer');
  const audience = get<string>('jwt.audience');
  const clockTolerance = get<number>('jwt.leeway') ?? 0;
  const options = {
    algorithms,
    clockTolerance,
    ...(issuer !== undefined ? { issuer } : {}),
    ...(audience !== undefined ? { audience } : {}),
  };
  const verified = new VerifiedTokens(clockTolerance);
  return {
    verify: async (token) => {
      if (unusable) throw new SecurityConfigError(unusable);
      const known = verified.payloadOf(token);
      if (known) return known;
      const { payload } =
        typeof key === 'function'
          ? await jose.jwtVerify(token, key, options)
          : await jose.jwtVerify(token, key, options);
      verified.remember(token, payload);
      return payload as Record<string, unknown>;
    },
    algorithms,
    issuer,
    audience,
    rolesClaim: get<string>('jwt.roles_claim') ?? 'roles',
    userClaim: get<string>('jwt.user_claim') ?? 'sub',
    secretEnv,
    unusable,
    ...(weakSecret ? { weakSecret } : {}),
  };
}

/** The algorithms a public key can verify: RSA → RS and PS, an EC curve → its ES, Ed25519 → EdDSA. */
function algorithmsOfKey(key: KeyObject): readonly string[] {
  switch (key.asymmetricKeyType) {
    case 'rsa':
      return RSA_ALGORITHMS;
    case 'rsa-pss':
      return RSA_ALGORITHMS.filter((a) => a.startsWith('PS'));
    case 'ec': {
      const curve = key.asymmetricKeyDetails?.namedCurve;
      const alg = curve === undefined ? undefined : CURVE_ALGORITHMS.get(curve);
      return alg ? [alg] : [];
    }
    case 'ed25519':
      return OKP_ALGORITHMS;
    default:
      return [];
  }
}
