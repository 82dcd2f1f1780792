/**
 * Purge requests to external HTTP caches (`http_cache.invalidation`), in the format API Platform's purgers send:
 * - `varnish-ban`: `BAN` with `ApiPlatform-Ban-Regex: (<tag>|<tag>…)($|\,)`, tags regex-escaped (the VCL bans
 *   the objects whose Cache-Tags match);
 * - `varnish-xkey`: `PURGE` with `xkey: <tag> <tag>…`;
 * - `souin`: `PURGE` with `Surrogate-Key: <tag>, <tag>…`.
 * Tags are split over several requests so that no header outgrows what the cache accepts. A purge that fails or
 * takes longer than `timeout` is logged and never fails the write.
 */
import type { Logger } from 'pino';
import type { HttpCacheSettings } from '../metadata/types.js';

interface PurgeFormat {
  method: string;
  header: string;
  glue: string;
  /** Longest header value sent. */
  maxLength: number;
  value(tags: string[]): string;
}

const escapeRegex = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

const FORMATS: Record<HttpCacheSettings['invalidation']['purger'], PurgeFormat> = {
  'varnish-ban': {
    method: 'BAN',
    header: 'ApiPlatform-Ban-Regex',
    glue: '|',
    maxLength: 8000,
    value: (tags) => `(${tags.map(escapeRegex).join('|')})($|\\,)`,
  },
  'varnish-xkey': { method: 'PURGE', header: 'xkey', glue: ' ', maxLength: 8000, value: (tags) => tags.join(' ') },
  souin: { method: 'PURGE', header: 'Surrogate-Key', glue: ', ', maxLength: 1500, value: (tags) => tags.join(', ') },
};

/** `tags` in groups whose header value stays under the format's limit (a tag longer than it goes alone). */
function batches(tags: readonly string[], format: PurgeFormat): string[][] {
  const out: string[][] = [];
  let current: string[] = [];
  let length = 0;
  for (const tag of tags) {
    const added = tag.length * 2 + format.glue.length; // escaping may double a tag
    if (current.length && length + added > format.maxLength) {
      out.push(current);
      current = [];
      length = 0;
    }
    current.push(tag);
    length += added;
  }
  if (current.length) out.push(current);
  return out;
}

export type Purge = (tags: readonly string[]) => Promise<void>;

export function purger(settings: HttpCacheSettings['invalidation'], logger: Logger): Purge | undefined {
  if (!settings.enabled || settings.urls.length === 0) return undefined;
  const format = FORMATS[settings.purger];
  return async (tags) => {
    const requests = batches(tags, format).flatMap((group) => settings.urls.map((url) => send(url, format, group)));
    await Promise.all(requests);
  };

  async function send(url: string, format: PurgeFormat, tags: string[]): Promise<void> {
    try {
      const response = await fetch(url, {
        method: format.method,
        headers: { [format.header]: format.value(tags) },
        signal: AbortSignal.timeout(settings.timeout),
      });
      await response.arrayBuffer();
      if (!response.ok)
        logger.error({ url, status: response.status, purger: settings.purger }, 'http cache: purge refused');
    } catch (e) {
      logger.error({ url, err: e, purger: settings.purger }, 'http cache: purge failed');
    }
  }
}
