/** `config { … }`: nested blocks mirror the dotted names of the global settings. */
import type * as A from '../../ast.js';
import { settingByPath, settingChildren } from '../../catalogue/index.js';
import { redisUrlProblem } from '../../catalogue/redis-url.js';
import type { CheckContext } from '../check-context.js';
import { checkValue } from '../value-types.js';

export function checkConfig(ctx: CheckContext): void {
  for (const decl of ctx.model.document.declarations) if (decl.kind === 'config') checkBlock(ctx, decl.body, '');
}

function checkBlock(ctx: CheckContext, body: A.ObjectValue, prefix: string): void {
  ctx.duplicateKeys(body.entries, 'setting');
  const allowed = settingChildren(prefix);
  for (const e of body.entries) {
    const path = prefix ? `${prefix}.${e.key.text}` : e.key.text;
    const setting = settingByPath(path);
    if (setting) {
      checkValue(ctx, e.value, setting.type, `setting '${path}'`);
      if (path === 'cors.allow_origin') checkPatterns(ctx, e.value, path, '^');
      if (path === 'trusted_hosts') checkPatterns(ctx, e.value, path);
      if (path === 'cluster.redis') checkRedisUrl(ctx, e.value);
      if (
        (path === 'mcp.path' || path === 'admin.path') &&
        e.value?.kind === 'string' &&
        !e.value.value.startsWith('/')
      )
        ctx.report('invalid-value', e.value.range, `${path} must be a path starting with '/' ("/${prefix}")`);
    } else if (allowed.includes(e.key.text)) {
      if (e.value?.kind === 'object') checkBlock(ctx, e.value, path);
      else if (e.value)
        ctx.report('invalid-value', e.value.range, `'${path}' is a block of settings: write ${e.key.text} { … }`);
    } else {
      const where = prefix ? `in '${prefix}'` : 'in config';
      ctx.unknown('unknown-option', e.key, `setting`, allowed, ` (${where}: ${allowed.join(', ')})`);
    }
  }
}

/**
 * Settings whose entries are regular expressions (`trusted_hosts`; `cors.allow_origin` entries that start
 * with `^`): one that does not compile is an error here, not at start-up.
 */
function checkPatterns(ctx: CheckContext, value: A.Value | undefined, path: string, prefix = ''): void {
  if (value?.kind !== 'array') return;
  for (const item of value.items) {
    if (item.kind !== 'string' || !item.value.startsWith(prefix)) continue;
    try {
      new RegExp(item.value, 'i');
    } catch (err) {
      ctx.report('invalid-value', item.range, `invalid regular expression in ${path}: ${(err as Error).message}`);
    }
  }
}

/** `cluster.redis`: a URL the Redis client can connect to (redis:// or rediss://, with a host). */
function checkRedisUrl(ctx: CheckContext, value: A.Value | undefined): void {
  if (value?.kind !== 'string') return;
  const problem = redisUrlProblem(value.value);
  if (problem) ctx.report('invalid-value', value.range, `cluster.redis: ${problem}`);
}
