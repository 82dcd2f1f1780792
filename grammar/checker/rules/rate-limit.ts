/**
 * Rate limits (docs/behaviour.md, "Rate limits"), what the value checks cannot see: a `rateLimit` object that
 * gives no `limit` while `config { rate_limit }` gives none either limits nothing, `by: "user"` where nothing
 * authenticates counts every request by address, and `for: "authenticated"` there limits none; each is said where
 * it is written.
 */
import type * as A from '../../ast.js';
import { configEntry, wordOf, type ModelResource } from '../../model.js';
import type { CheckContext } from '../check-context.js';

export function checkRateLimits(ctx: CheckContext): void {
  const config = ctx.model.config;
  const defaultLimit = configEntry(config, 'rate_limit.limit')?.value !== undefined;
  const authenticates = ['security.jwt', 'security.authenticator'].some((path) => configEntry(config, path));
  if (!authenticates) reportAnonymousUsers(ctx, configEntry(config, 'rate_limit.by')?.value);
  for (const resource of ctx.model.resources.values()) {
    for (const e of rateLimitEntries(resource)) {
      if (e.value?.kind !== 'object') continue;
      const fields = new Map(e.value.entries.map((f) => [f.key.text, f.value]));
      if (!defaultLimit && !fields.has('limit'))
        ctx.report(
          'option-ineffective',
          e.key.range,
          "'rateLimit' has no effect: it gives no 'limit' and config rate_limit has none (write rateLimit: { limit: 100, … })",
        );
      if (!authenticates) reportAnonymousUsers(ctx, fields.get('by'));
      const caller = fields.get('for');
      if (!authenticates && caller && wordOf(caller) === 'authenticated')
        ctx.report(
          'option-ineffective',
          caller.range,
          'for: "authenticated" limits no request here: nothing authenticates (config security has no jwt or authenticator)',
        );
    }
  }
}

/** `by: "user"` in a file where nothing authenticates: every request is anonymous, so counted by address. */
function reportAnonymousUsers(ctx: CheckContext, by: A.Value | undefined): void {
  if (!by || wordOf(by) !== 'user') return;
  ctx.report(
    'option-ineffective',
    by.range,
    'by: "user" counts every request by address here: nothing authenticates (config security has no jwt or authenticator)',
  );
}

/** The `rateLimit` entries of a resource and of its declared operations. */
function* rateLimitEntries(resource: ModelResource): Iterable<A.Entry> {
  for (const e of resource.decl.options) if (e.key.text === 'rateLimit') yield e;
  for (const op of resource.operations)
    for (const e of op.decl?.body?.entries ?? []) if (e.key.text === 'rateLimit') yield e;
}
