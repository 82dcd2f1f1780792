/**
 * `config { security { jwt { … } } }`: exactly one key source (secret_env, public_key or jwks), key
 * files that exist and hold what they should (a PEM public key, a JWKS with keys), and algorithms
 * the key source can verify. `serve` would refuse to start on each of these; the checker says so first.
 */
import { createPublicKey } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import * as A from '../../ast.js';
import { HMAC_ALGORITHMS, JWT_KEY_SOURCES } from '../../catalogue/security-settings.js';
import { configEntry, wordOf } from '../../model.js';
import type { CheckContext } from '../check-context.js';

/** Settings whose value names the environment variable holding a secret (never the secret itself). */
const SECRET_VARIABLES = [
  'security.jwt.secret_env',
  'mercure.publisher_jwt_secret_env',
  'mercure.subscriber_jwt_secret_env',
  'mercure.publisher_jwt_env',
];
/** How environment variables are named (POSIX shells: upper-case letters, digits and `_`). */
const VARIABLE_NAME = /^[A-Z_][A-Z0-9_]*$/;

/**
 * A secret written where its variable's name goes (`secret_env: "my-super-secret"`) is in the file for anyone
 * who reads it, and the service would look for a variable of that name: a warning saying so.
 */
function checkSecretVariables(ctx: CheckContext): void {
  for (const path of SECRET_VARIABLES) {
    const value = configEntry(ctx.model.config, path)?.value;
    if (value?.kind !== 'string' || VARIABLE_NAME.test(value.value)) continue;
    ctx.report(
      'secret-in-file',
      value.range,
      `${path} names the environment variable that holds the secret; ${JSON.stringify(value.value)} does not look like ` +
        'one (upper-case letters, digits and _): keep the secret itself out of the file, e.g. export APIDSL_JWT_SECRET=… ' +
        'and secret_env: "APIDSL_JWT_SECRET"',
    );
  }
}

export function checkSecurityConfig(ctx: CheckContext): void {
  checkSecretVariables(ctx);
  const jwt = configEntry(ctx.model.config, 'security.jwt');
  if (jwt?.value?.kind !== 'object') return;
  const body = jwt.value;
  const sources = JWT_KEY_SOURCES.map((name) => A.entryOf(body, name)).filter(
    (e): e is A.Entry => e !== undefined && e.value?.kind !== 'null',
  );
  if (sources.length === 0) {
    ctx.report(
      'invalid-value',
      jwt.key.range,
      'security.jwt needs a key source: secret_env (HS256/384/512), public_key (a PEM file) or jwks (a JWKS file)',
    );
  }
  for (const extra of sources.slice(1)) {
    ctx.report(
      'invalid-value',
      extra.key.range,
      `security.jwt has two key sources (${sources[0].key.text} and ${extra.key.text}): keep one`,
    );
  }
  const source = sources[0];
  if (!source || source.value?.kind !== 'string') return;
  if (source.key.text !== 'secret_env') checkKeyFile(ctx, source.key.text, source.value);
  checkAlgorithms(ctx, body, source.key.text === 'secret_env');
}

function checkKeyFile(ctx: CheckContext, setting: string, value: A.StringValue): void {
  if (ctx.env.baseDir === undefined) return;
  const file = isAbsolute(value.value) ? value.value : resolve(ctx.env.baseDir, value.value);
  if (!(ctx.env.fileExists ?? existsSync)(file)) {
    ctx.report(
      'invalid-value',
      value.range,
      `security.jwt.${setting}: file '${value.value}' does not exist (looked for ${file})`,
    );
    return;
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    ctx.report('invalid-value', value.range, `security.jwt.${setting}: cannot read ${file}: ${(e as Error).message}`);
    return;
  }
  if (setting === 'public_key') {
    try {
      createPublicKey(text);
    } catch {
      ctx.report(
        'invalid-value',
        value.range,
        `security.jwt.public_key: '${value.value}' does not hold a PEM public key`,
      );
    }
    return;
  }
  let keys: unknown;
  try {
    keys = (JSON.parse(text) as { keys?: unknown }).keys;
  } catch {
    keys = undefined;
  }
  if (!Array.isArray(keys) || keys.length === 0) {
    ctx.report(
      'invalid-value',
      value.range,
      `security.jwt.jwks: '${value.value}' is not a JWKS (a JSON object whose "keys" lists at least one key)`,
    );
  }
}

/** An HS algorithm needs the shared secret; the others need a public key. */
function checkAlgorithms(ctx: CheckContext, body: A.ObjectValue, shared: boolean): void {
  const list = A.entryOf(body, 'algorithms')?.value;
  if (list?.kind !== 'array') return;
  for (const item of list.items) {
    const alg = wordOf(item);
    if (alg === undefined) continue;
    const hmac = (HMAC_ALGORITHMS as readonly string[]).includes(alg);
    if (hmac !== shared) {
      const why = shared
        ? 'secret_env verifies only HS256, HS384 and HS512'
        : `${alg} needs the shared secret (secret_env), not a public key`;
      ctx.report('invalid-value', item.range, `security.jwt.algorithms: ${alg} cannot be verified here: ${why}`);
    }
  }
}
