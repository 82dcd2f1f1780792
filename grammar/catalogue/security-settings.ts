/**
 * `config { security { … } }`: how requests are authenticated (Bearer JWT, custom
 * authenticator), the role hierarchy and the voters `is_granted` asks. Resolved once at load.
 */
import type { SettingSpec, ValueType } from './types.js';

const STRING: ValueType = { kind: 'string' };

/** JWT algorithms, by the kind of key that verifies them. */
export const HMAC_ALGORITHMS = ['HS256', 'HS384', 'HS512'] as const;
/**
 * RFC 7518 §3.2: an HMAC key must be at least as long as the hash's output, 32 bytes for HS256, 48 for HS384,
 * 64 for HS512. A shorter secret can be guessed offline from any one token, and whoever guesses it signs any token.
 */
const HMAC_MIN_SECRET_BYTES: Readonly<Record<string, number>> = { HS256: 32, HS384: 48, HS512: 64 };

/**
 * Why the shared secret in `variable` is too short for some of `algorithms` (the HS ones the service verifies
 * or `apidsl token` signs with), or undefined. `serve` and `token` print it as a warning.
 */
export function shortSecretWarning(
  variable: string,
  secret: string,
  algorithms: readonly string[],
): string | undefined {
  const bytes = Buffer.byteLength(secret, 'utf8');
  const short = algorithms.filter((a) => bytes < (HMAC_MIN_SECRET_BYTES[a] ?? 0));
  if (!short.length) return undefined;
  const needs = short.map((a) => `${a} needs ${HMAC_MIN_SECRET_BYTES[a]}`).join(', ');
  const hint =
    short.length < algorithms.length
      ? ` (or keep security.jwt.algorithms to ${algorithms.filter((a) => !short.includes(a)).join(', ')})`
      : '';
  return (
    `the JWT secret in ${variable} is ${bytes} bytes long; ${needs} (RFC 7518 §3.2: at least the hash's size): ` +
    `a short secret can be guessed from one token, and whoever has it signs any token. Use a longer random secret${hint}, ` +
    `e.g. node -e "console.log(require('node:crypto').randomBytes(32).toString('hex'))"`
  );
}

export const RSA_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'] as const;
export const EC_ALGORITHMS = ['ES256', 'ES384', 'ES512'] as const;
export const OKP_ALGORITHMS = ['EdDSA', 'Ed25519'] as const;
export const JWT_ALGORITHMS: readonly string[] = [
  ...HMAC_ALGORITHMS,
  ...RSA_ALGORITHMS,
  ...EC_ALGORITHMS,
  ...OKP_ALGORITHMS,
];

/** The settings that say where the verification key comes from: exactly one is required. */
export const JWT_KEY_SOURCES = ['secret_env', 'public_key', 'jwks'] as const;

export const SECURITY_SETTINGS: readonly SettingSpec[] = [
  {
    path: 'security.jwt.secret_env',
    type: STRING,
    doc: 'Bearer JWTs signed with HS256/384/512: the name of the environment variable holding the shared secret.',
  },
  {
    path: 'security.jwt.public_key',
    type: STRING,
    doc: 'Bearer JWTs signed with RS*/PS*/ES*/EdDSA: a PEM public key file (path relative to the .api file).',
  },
  {
    path: 'security.jwt.jwks',
    type: STRING,
    doc: "Bearer JWTs verified by a local JWKS file (path relative to the .api file); the token's `kid` selects the key.",
  },
  {
    path: 'security.jwt.algorithms',
    type: { kind: 'list', of: { kind: 'enum', values: JWT_ALGORITHMS } },
    doc: 'Accepted signature algorithms (default: every one the key type allows); `apidsl token` signs with the first.',
  },
  { path: 'security.jwt.issuer', type: STRING, doc: "When set, a token's `iss` must equal it." },
  { path: 'security.jwt.audience', type: STRING, doc: "When set, a token's `aud` must contain it." },
  {
    path: 'security.jwt.roles_claim',
    type: STRING,
    default: 'roles',
    doc: "Claim holding the user's roles: an array of strings or a space-separated string (a dotted path reaches nested claims).",
  },
  {
    path: 'security.jwt.user_claim',
    type: STRING,
    default: 'sub',
    doc: "Claim holding the user's identifier (required in every token).",
  },
  {
    path: 'security.jwt.leeway',
    type: { kind: 'int', min: 0 },
    default: 0,
    doc: 'Seconds of clock skew accepted on `exp` and `nbf`.',
  },
  {
    path: 'security.authenticator',
    type: { kind: 'codeRef' },
    doc: 'Custom authentication `(request) => user | null` (may be async) for API keys or sessions; throwing rejects the request (401).',
  },
  {
    path: 'security.role_hierarchy',
    type: { kind: 'map', of: { kind: 'list', of: STRING } },
    default: {},
    doc: 'Roles that grant other roles, transitively: `{ ROLE_ADMIN: ["ROLE_USER"] }`.',
  },
  {
    path: 'security.voters',
    type: { kind: 'list', of: { kind: 'codeRef' } },
    default: [],
    doc: '`is_granted(attribute, subject)` for attributes other than roles: `(attribute, subject, user) => true | false | undefined`; one true grants.',
  },
];
