/**
 * A connection to the Redis of `cluster.redis` (ioredis): it reconnects forever (every 0.2 s up to 2 s apart),
 * never queues a command while disconnected (the caller decides what to do instead), and reports losing and
 * regaining the server once each, not at every attempt.
 */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

/** How long a command may take before it fails. */
const COMMAND_MS = 1000;

/** The URL without its password, for logs. */
export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(invalid URL)';
  }
}

// ioredis is loaded by the first connection: loading it costs every start about 0.15 s of CPU, and most files
// have no `cluster.redis`.
export async function openRedis(url: string, logger: Logger, role: string): Promise<Redis> {
  // Through the default export (module.exports), which is all a CommonJS package loaded on demand gives in the bundle
  // (scripts/bundle-cli.mjs); under Node it is the same object.
  const { Redis: RedisClient } = (await import('ioredis')).default;
  const redis = new RedisClient(url, {
    // The subscriber's SUBSCRIBE waits for the first connection; everything else fails at once while down.
    enableOfflineQueue: role === 'subscriber',
    maxRetriesPerRequest: 0,
    // The subscriber waits for messages and the reader blocks on purpose (XREAD BLOCK); every other command is bounded.
    commandTimeout: role === 'subscriber' || role === 'reader' ? undefined : COMMAND_MS,
    connectTimeout: 2000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    lazyConnect: false,
  });
  let down = false;
  redis.on('error', (err: Error) => {
    if (down) return;
    down = true;
    logger.warn({ redis: redactRedisUrl(url), role, err: err.message }, 'cluster: Redis unreachable');
  });
  redis.on('ready', () => {
    if (!down) return;
    down = false;
    logger.info({ redis: redactRedisUrl(url), role }, 'cluster: Redis reachable again');
  });
  return redis;
}
