/** `cluster.redis` (and APIDSL_REDIS_URL): what makes a Redis URL one the client can connect to. */

/** Why `url` is not a Redis URL; undefined when it is one. */
export function redisUrlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `"${url}" is not a URL; write redis://host:port (rediss:// for TLS).`;
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:')
    return `"${parsed.protocol}" is not a Redis scheme; write redis://host:port (rediss:// for TLS).`;
  if (!parsed.hostname) return 'the URL names no host; write redis://host:port.';
  if (parsed.pathname.length > 1 && !/^\/\d+$/.test(parsed.pathname))
    return `"${parsed.pathname}" is not a database number; write redis://host:port/0 or leave it out.`;
  return undefined;
}
