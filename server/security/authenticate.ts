/**
 * Who sent a request, decided once per request before routing: a Bearer JWT when `security.jwt`
 * is configured, else the custom authenticator, else nobody (anonymous). Credentials that are
 * present but cannot be verified answer 401 `invalid_token` on every route: a request is never
 * treated as anonymous because its credentials failed. A token already verified is remembered by
 * the verifier of its keys, within its exp/nbf window (metadata/verified-tokens.ts), so none outlives a key change.
 */
import type { Logger } from 'pino';
import { HttpError } from '../protocol/errors.js';
import type { SecurityMetadata } from '../metadata/types.js';
import type { SecurityUser } from '../expression/evaluate.js';

/** The request as the authenticator sees it (header names in lower case). */
export interface AuthenticationRequest {
  method: string;
  url: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  query: Record<string, unknown>;
}

export const INVALID_TOKEN_CHALLENGE = 'Bearer error="invalid_token"';

export const invalidCredentials = (detail: string): HttpError =>
  new HttpError(401, detail, { headers: { 'WWW-Authenticate': INVALID_TOKEN_CHALLENGE } });

/** True when some authentication is configured (else every request is anonymous). */
export const authenticates = (security: SecurityMetadata): boolean =>
  security.jwt !== undefined || security.authenticator !== undefined;

/** `request` is made only when the authenticator needs it (a JWT-only service never parses the query for it). */
export async function authenticate(
  security: SecurityMetadata,
  headers: AuthenticationRequest['headers'],
  request: () => AuthenticationRequest,
  logger: Logger,
): Promise<SecurityUser | null> {
  const header = headers.authorization;
  const authorization = Array.isArray(header) ? header[0] : header;
  if (security.jwt && authorization !== undefined) {
    const bearer = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(authorization);
    // Another scheme goes to the authenticator when there is one (Basic, API key schemes…).
    if (bearer) return jwtUser(security, bearer[1]);
    if (!security.authenticator || /^Bearer\b/i.test(authorization)) {
      throw invalidCredentials('The Authorization header must be "Bearer <token>".');
    }
  }
  if (!security.authenticator) return null;
  let returned: unknown;
  const asked = request();
  try {
    returned = await security.authenticator(asked);
  } catch (e) {
    // Fail closed: an authenticator that throws rejects the credentials it was given.
    logger.warn({ err: e, method: asked.method, url: asked.url }, 'authenticator rejected the request');
    throw invalidCredentials('The credentials could not be verified.');
  }
  if (returned === null || returned === undefined) {
    // An Authorization header neither the JWT check nor the authenticator accepted is not anonymous.
    if (security.jwt && authorization !== undefined)
      throw invalidCredentials('The Authorization header must be "Bearer <token>".');
    return null;
  }
  const user = authenticatorUser(returned);
  if (!user) {
    logger.error(
      { method: asked.method, url: asked.url },
      'authenticator returned neither null nor an object with a string identifier',
    );
    throw invalidCredentials('The credentials could not be verified.');
  }
  return user;
}

async function jwtUser(security: SecurityMetadata, token: string): Promise<SecurityUser> {
  const jwt = security.jwt!;
  let payload: Record<string, unknown>;
  try {
    payload = await jwt.verify(token);
  } catch (e) {
    if (jwt.unusable) throw invalidCredentials('This service cannot verify tokens: its JWT secret is not configured.');
    throw invalidCredentials(reason(e));
  }
  const id = claim(payload, jwt.userClaim);
  if (typeof id !== 'string' && typeof id !== 'number')
    throw invalidCredentials(`The token has no "${jwt.userClaim}" claim.`);
  return { identifier: String(id), roles: rolesOf(claim(payload, jwt.rolesClaim)), claims: payload };
}

/** A claim by name, or by a dotted path into nested claims (`realm_access.roles`). */
function claim(payload: Record<string, unknown>, name: string): unknown {
  if (Object.hasOwn(payload, name)) return payload[name];
  let value: unknown = payload;
  for (const part of name.split('.')) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, part)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** Roles as an array of strings or a space-separated string; anything else carries none. */
function rolesOf(value: unknown): string[] {
  if (typeof value === 'string') return value.split(' ').filter(Boolean);
  if (Array.isArray(value)) return value.filter((r): r is string => typeof r === 'string' && r !== '');
  return [];
}

function authenticatorUser(value: unknown): SecurityUser | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  if (typeof v.identifier !== 'string' && typeof v.identifier !== 'number') return undefined;
  return { identifier: String(v.identifier), roles: rolesOf(v.roles), claims: { ...v } };
}

/** A short, safe reason for the 401 detail (jose's codes, never the token). */
function reason(e: unknown): string {
  switch ((e as { code?: string }).code) {
    case 'ERR_JWT_EXPIRED':
      return 'The token has expired.';
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED': {
      const c = (e as { claim?: string }).claim;
      if (c === 'nbf') return 'The token is not valid yet.';
      if (c === 'iss') return 'The token was issued by another issuer.';
      if (c === 'aud') return 'The token is meant for another audience.';
      return `The token's "${c}" claim is invalid.`;
    }
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return 'The token signature is invalid.';
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return 'The token is signed with an algorithm this service does not accept.';
    case 'ERR_JWKS_NO_MATCHING_KEY':
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
      return 'No key of this service matches the token (kid).';
    default:
      return 'The token is malformed or invalid.';
  }
}
