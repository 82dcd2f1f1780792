/**
 * Rate limits (docs/behaviour.md, "Rate limits"), checked by the pipeline's entry (execute.ts) so that every
 * face of an operation counts. A request to a limited operation (metadata/rate-limit.ts) counts against the
 * operation and its client: the authenticated user's identifier under `by: "user"`, else the client's address
 * (protocol/client-address.ts); a limit `for` anonymous or authenticated callers only counts none of the others.
 * Under the limit the answer carries `RateLimit-Policy` and `RateLimit`; past it the request is refused with 429,
 * `Retry-After` and the same two headers. A store that fails (not a refusal) is
 * logged, at most once a minute, and the request is served: a broken counter never takes the API down.
 */
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { rateLimitOf, type RateLimitPolicy } from '../metadata/rate-limit.js';
import type { Settings } from '../metadata/types.js';
import { clientAddress, trustedProxies, type TrustedProxies } from '../protocol/client-address.js';
import { HttpError } from '../protocol/errors.js';
import type { Principal } from '../security/access.js';
import type { RateLimitStore, Runtime } from './runtime.js';
import { unavailable, type Answers } from './answers.js';

/** Who sends a request, as far as counting goes. */
export interface RateLimitClient {
  /** The peer's address (the socket's remote address); none: an in-process caller, counted as `local`. */
  peer?: string;
  /** Lower-case names; `x-forwarded-for` is read when the peer is a trusted proxy. */
  headers: Record<string, string | string[] | undefined>;
  principal: Principal;
}

/** The headers a rate-limited answer may carry, which CORS exposes to pages (http/cors.ts). */
export const RATE_LIMIT_HEADERS = ['RateLimit-Policy', 'RateLimit', 'Retry-After'];

/** Past the operation's limit: 429 with the headers it carries; 503 when the count itself fails (`countRequest`). */
export const rateLimitAnswers: Answers = (op, api) => {
  const limit = rateLimitOf(op, api.settings);
  if (!limit) return [];
  const text = { type: 'string' };
  return [
    {
      status: 429,
      description: `Too many requests: more than ${limit.limit} per ${limit.seconds} s from this ${limit.by === 'user' ? 'user' : 'client address'}.`,
      headers: {
        'Retry-After': { description: 'Seconds until the operation may be called again.', schema: { type: 'integer' } },
        'RateLimit-Policy': { description: 'The limit: `"<operation>";q=<requests>;w=<seconds>`.', schema: text },
        RateLimit: { description: 'What is left: `"<operation>";r=<remaining>;t=<seconds to reset>`.', schema: text },
      },
    },
    unavailable('The rate limit of this operation could not be counted (its counter failed).'),
  ];
};

const trustedOf = new WeakMap<Settings, TrustedProxies>();
const lastWarning = new WeakMap<Runtime, number>();

/** The key a request counts under: its user's (`by: "user"`, authenticated) or its client address. */
function clientKey(settings: Settings, policy: RateLimitPolicy, client: RateLimitClient): string {
  const user = policy.by === 'user' ? client.principal.user : null;
  if (user) return `user:${user.identifier}`;
  if (client.peer === undefined) return 'ip:local';
  let trusted = trustedOf.get(settings);
  if (!trusted) trustedOf.set(settings, (trusted = trustedProxies(settings.rateLimit.trustedProxies)));
  return `ip:${clientAddress(client.peer, client.headers['x-forwarded-for'], trusted)}`;
}

/** A structured-field string (RFC 9651): quoted, with `"` and backslash escaped. */
const sfString = (text: string): string => `"${text.replace(/["\\]/g, (c) => `\\${c}`)}"`;

const seconds = (ms: number): number => Math.max(0, Math.ceil(ms / 1000));

/** What a policy needs on every request, made once per policy and store: its counter and its header texts. */
interface Prepared {
  store: RateLimitStore;
  counter: RateLimiterAbstract;
  /** The policy's name as a structured-field string. */
  name: string;
  /** The `RateLimit-Policy` value. */
  policy: string;
}
const preparedOf = new WeakMap<RateLimitPolicy, Prepared>();

function prepare(runtime: Runtime, policy: RateLimitPolicy): Prepared {
  let prepared = preparedOf.get(policy);
  if (prepared?.store !== runtime.rateLimits) {
    const name = sfString(policy.name);
    prepared = {
      store: runtime.rateLimits,
      counter: runtime.rateLimits.counter(`rl:${policy.name}`, policy.limit, policy.seconds),
      name,
      policy: `${name};q=${policy.limit};w=${policy.seconds}`,
    };
    preparedOf.set(policy, prepared);
  }
  return prepared;
}

/** `RateLimit-Policy` and `RateLimit` (the IETF httpapi draft's structured-field form) of a count. */
const limitHeaders = (prepared: Prepared, count: RateLimiterRes): Record<string, string> => ({
  'RateLimit-Policy': prepared.policy,
  RateLimit: `${prepared.name};r=${Math.max(0, count.remainingPoints)};t=${seconds(count.msBeforeNext)}`,
});

/**
 * Counts a request against its operation's limit: the headers of the answer. Past the limit it throws the 429;
 * when the count itself fails, a 503 (logged): the request is not run unlimited.
 */
export function countRequest(
  runtime: Runtime,
  policy: RateLimitPolicy,
  client: RateLimitClient,
): Promise<Record<string, string>> {
  if (policy.for !== 'all' && (client.principal.user ? 'authenticated' : 'anonymous') !== policy.for)
    return Promise.resolve({}); // a caller the limit is not for: not counted, no headers
  const prepared = prepare(runtime, policy);
  // One promise on the request path, the counter's (no async wrapper around it): every request of a limited
  // operation takes this way.
  return prepared.counter.consume(clientKey(runtime.api.settings, policy, client)).then(
    (count) => limitHeaders(prepared, count),
    (e: unknown) => {
      if (e instanceof RateLimiterRes) throw tooManyRequests(policy, prepared, e);
      // Fail closed: a request the limit cannot vouch for is not run (the stores fall back to a count of their
      // own first, so this is a fault of the counter itself).
      warnOnce(runtime, e);
      throw new HttpError(503, 'The rate limit of this operation could not be counted; retry shortly.', {
        headers: { 'Retry-After': '1' },
      });
    },
  );
}

function tooManyRequests(policy: RateLimitPolicy, prepared: Prepared, count: RateLimiterRes): HttpError {
  const retry = Math.max(1, seconds(count.msBeforeNext));
  return new HttpError(
    429,
    `The rate limit of ${policy.limit} requests per ${windowText(policy.seconds)} is reached; retry in ${retry} second${retry === 1 ? '' : 's'}.`,
    { title: 'Too Many Requests', headers: { 'Retry-After': String(retry), ...limitHeaders(prepared, count) } },
  );
}

/** A window in words: `hour`, `10 minutes`, `90 seconds`. */
function windowText(total: number): string {
  let [n, unit] = [total, 'second'];
  if (total % 3600 === 0) [n, unit] = [total / 3600, 'hour'];
  else if (total % 60 === 0) [n, unit] = [total / 60, 'minute'];
  return n === 1 ? unit : `${n} ${unit}s`;
}

function warnOnce(runtime: Runtime, err: unknown): void {
  const now = Date.now();
  if (now - (lastWarning.get(runtime) ?? 0) < 60_000) return;
  lastWarning.set(runtime, now);
  runtime.logger.warn(
    { err },
    'rate limits: the counter failed; requests to limited operations are refused (503) meanwhile',
  );
}
