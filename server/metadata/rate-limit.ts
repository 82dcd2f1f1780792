/**
 * An operation's rate limit (docs/behaviour.md, "Rate limits"): its `rateLimit` (written on the operation or
 * its resource), each field over `config { rate_limit }`; none where no level gives a limit or `rateLimit` is
 * false. Read by the pipeline's entry, which counts, and by the OpenAPI document, which lists the 429.
 */
import { intervalSeconds } from '../../grammar/catalogue/index.js';
import { optionValue, perOperation } from './options.js';
import type { OperationMetadata, Settings } from './types.js';

export interface RateLimitPolicy {
  /** The policy's name in the `RateLimit-Policy` and `RateLimit` headers: the operation's name. */
  name: string;
  /** Requests per window. */
  limit: number;
  /** The window, in seconds. */
  seconds: number;
  /** Counted per client address, or per authenticated user (anonymous requests per address). */
  by: 'ip' | 'user';
  /** Whose requests count: anonymous ones only, authenticated ones only, or all; the others are not limited. */
  for: 'all' | 'anonymous' | 'authenticated';
}

export const rateLimitOf = perOperation((op: OperationMetadata, settings: Settings): RateLimitPolicy | undefined => {
  // Another face of a REST operation (GraphQL) counts under that operation's policy: one count for both.
  if (op.faceOf) return rateLimitOf(op.faceOf, settings);
  const own = optionValue(op, 'rateLimit');
  if (own === false) return undefined;
  const defaults = settings.rateLimit;
  const limit = own?.limit ?? defaults.limit;
  if (limit === undefined) return undefined;
  // The checker accepted the interval, so it reads; the catalogue's default is the fallback of a broken one.
  const seconds = intervalSeconds(own?.interval ?? defaults.interval) ?? 60;
  return { name: op.name, limit, seconds, by: own?.by ?? defaults.by, for: own?.for ?? 'all' };
});
