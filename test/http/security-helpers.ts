/**
 * Shared by the security suites: the fixture's secret and claims, tokens signed with jose (as an
 * identity provider would), and request shorthands with a Bearer token.
 */
import type { KeyObject } from 'node:crypto';
import { SignJWT, type JWTPayload } from 'jose';
import { fromRoot } from '../support/paths.js';
import { request, type HttpResponse, type RequestOptions } from './harness.js';

/** The secret the HS256 fixtures read from APIDSL_TEST_JWT_SECRET (set before any server starts). */
export const SECRET = 'a-test-secret-that-is-long-enough-for-hs512-0123456789abcdef0123456789';
process.env.APIDSL_TEST_JWT_SECRET = SECRET;

export const ISSUER = 'https://id.example.test';
export const AUDIENCE = 'bookstore';

export const securityFixture = (name: string): string => fromRoot(`test/fixtures/security/${name}`);

export interface TokenOptions {
  sub?: string;
  roles?: unknown;
  alg?: string;
  key?: Uint8Array | KeyObject;
  kid?: string;
  iss?: string | null;
  aud?: string | null;
  /** Seconds from now; negative: already expired. */
  exp?: number | null;
  nbf?: number;
  claims?: JWTPayload;
}

const encoder = new TextEncoder();
const now = (): number => Math.floor(Date.now() / 1000);

/** A token for the fixture: HS256 with SECRET, the fixture's issuer and audience, one hour to live. */
export async function token(options: TokenOptions = {}): Promise<string> {
  const payload: JWTPayload = { ...(options.claims ?? {}) };
  if (options.roles !== undefined) payload.roles = options.roles as JWTPayload[string];
  const jwt = new SignJWT(payload)
    .setProtectedHeader({ alg: options.alg ?? 'HS256', ...(options.kid ? { kid: options.kid } : {}) })
    .setIssuedAt();
  if (options.sub !== undefined) jwt.setSubject(options.sub);
  if (options.iss !== null) jwt.setIssuer(options.iss ?? ISSUER);
  if (options.aud !== null) jwt.setAudience(options.aud ?? AUDIENCE);
  if (options.exp !== null) jwt.setExpirationTime(now() + (options.exp ?? 3600));
  if (options.nbf !== undefined) jwt.setNotBefore(now() + options.nbf);
  return jwt.sign(options.key ?? encoder.encode(SECRET));
}

export const bearer = (t: string): Record<string, string> => ({ Authorization: `Bearer ${t}` });

/** A request with the given token (undefined: anonymous). */
export function as(
  t: string | undefined,
  base: string,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<HttpResponse> {
  return request(base, method, path, { ...options, headers: { ...(options.headers ?? {}), ...(t ? bearer(t) : {}) } });
}

/** Tokens of the fixture's users. */
export async function users(): Promise<{ alice: string; bob: string; editor: string; admin: string; nobody: string }> {
  return {
    alice: await token({ sub: 'alice', roles: ['ROLE_USER'] }),
    bob: await token({ sub: 'bob', roles: 'ROLE_USER' }),
    editor: await token({ sub: 'erin', roles: ['ROLE_EDITOR'] }),
    admin: await token({ sub: 'root', roles: ['ROLE_ADMIN'] }),
    nobody: await token({ sub: 'nobody', roles: [] }),
  };
}
