/**
 * The JWTs of the Mercure protocol (HMAC-signed, verified with `jose`): the `mercure.subscribe` and
 * `mercure.publish` claims are lists of topic selectors. Any failure to verify is a refusal.
 */
import type * as Jose from 'jose';

// Loaded at the first token: loading jose costs every start about 0.15 s of CPU, and most files have no hub.
let jose: Promise<typeof Jose> | undefined;
const loadJose = (): Promise<typeof Jose> => (jose ??= import('jose'));

export class InvalidToken extends Error {}

const ALGORITHMS = ['HS256', 'HS384', 'HS512'];

/** The selectors of `mercure.<claim>` in a token signed with `secret`; throws InvalidToken. */
export async function claimedSelectors(
  token: string,
  secret: string | undefined,
  claim: 'subscribe' | 'publish',
): Promise<string[]> {
  if (!secret) throw new InvalidToken('no key is configured to verify this token');
  let payload: Record<string, unknown>;
  try {
    // Inside the try: a library that cannot load is a refusal too, like any other failure to verify.
    const { jwtVerify } = await loadJose();
    ({ payload } = await jwtVerify(token, new TextEncoder().encode(secret), { algorithms: ALGORITHMS }));
  } catch (e) {
    throw new InvalidToken((e as Error).message);
  }
  const mercure = payload.mercure as Record<string, unknown> | undefined;
  const selectors = mercure?.[claim];
  return Array.isArray(selectors) ? selectors.filter((s): s is string => typeof s === 'string') : [];
}

/** A publisher token for every topic, valid one hour. */
export async function publisherToken(secret: string): Promise<string> {
  const { SignJWT } = await loadJose();
  return new SignJWT({ mercure: { publish: ['*'] } })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(secret));
}

/** The token of a request: Authorization header, else `authorization` query parameter, else cookie. */
export function requestToken(
  headers: Record<string, string | string[] | undefined>,
  query: URLSearchParams,
): string | undefined {
  const header = headers.authorization;
  if (typeof header === 'string' && header) return /^Bearer\s+(.+)$/i.exec(header)?.[1]?.trim() ?? '';
  const param = query.get('authorization');
  if (param !== null) return param;
  const cookie =
    typeof headers.cookie === 'string' ? /(?:^|;\s*)mercureAuthorization=([^;]*)/.exec(headers.cookie)?.[1] : undefined;
  return cookie ? decodeURIComponent(cookie) : undefined;
}
