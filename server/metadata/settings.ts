/** Global settings from `config { … }`, each with the catalogue's default when unset. */
import * as A from '../../grammar/ast.js';
import { OPTIONS, SETTINGS } from '../../grammar/catalogue/index.js';
import { configEntry } from '../../grammar/model.js';
import { resolveMercure, resolveMessenger } from './async-settings.js';
import { resolveSearchIndex } from './search-index.js';
import type { Settings } from './types.js';

/** A setting's value in `config { … }`, or the catalogue's default. */
type Get = <T>(path: string) => T;

export function resolveSettings(config: A.ObjectValue | undefined, env: NodeJS.ProcessEnv = process.env): Settings {
  const get: Get = <T>(path: string): T => {
    const entry = configEntry(config, path);
    const value = entry?.value ? (A.toPlain(entry.value) as T) : undefined;
    return value ?? (SETTINGS.find((s) => s.path === path)?.default as T);
  };
  const defaults: Record<string, unknown> = {};
  for (const option of OPTIONS) {
    if (!option.globalName) continue;
    const value = get<unknown>(`defaults.${option.globalName}`);
    if (value !== undefined && value !== null) defaults[option.name] = value;
  }
  return {
    pageParameter: get('collection.pagination.page_parameter_name'),
    enabledParameter: get('collection.pagination.enabled_parameter_name'),
    itemsPerPageParameter: get('collection.pagination.items_per_page_parameter_name'),
    partialParameter: get('collection.pagination.partial_parameter_name'),
    orderParameter: get('collection.order_parameter_name'),
    existsParameter: get('collection.exists_parameter_name'),
    defaultOrder: get<string>('collection.order').toUpperCase() === 'DESC' ? 'DESC' : 'ASC',
    formats: get('formats'),
    patchFormats: get('patch_formats'),
    errorFormats: get('error_formats'),
    hydraPrefix: get('hydra_prefix'),
    bodySizeLimit: get('body_size_limit'),
    bulkMaxItems: get('bulk_max_items'),
    cors: {
      allowOrigin: get('cors.allow_origin'),
      allowHeaders: get('cors.allow_headers'),
      exposeHeaders: get('cors.expose_headers'),
      maxAge: get('cors.max_age'),
      credentials: get('cors.credentials'),
    },
    trustedHosts: get('trusted_hosts'),
    server: {
      headersTimeout: get('server.headers_timeout'),
      requestTimeout: get('server.request_timeout'),
      keepAliveTimeout: get('server.keep_alive_timeout'),
      maxConnections: get('server.max_connections'),
    },
    httpCache: httpCacheSettings(get),
    rateLimit: {
      limit: get('rate_limit.limit'),
      interval: get('rate_limit.interval'),
      by: get('rate_limit.by'),
      trustedProxies: get('rate_limit.trusted_proxies'),
    },
    defaults: defaults as Settings['defaults'],
    mercure: resolveMercure(config),
    messenger: resolveMessenger(config),
    cluster: { redisUrl: env.APIDSL_REDIS_URL || get<string | undefined>('cluster.redis') },
    graphql: {
      enabled: get('graphql.enabled'),
      graphiql: get('graphql.graphiql'),
      introspection: get('graphql.introspection'),
      maxQueryDepth: get('graphql.max_query_depth'),
      maxQueryComplexity: get('graphql.max_query_complexity'),
      nestingSeparator: get('graphql.nesting_separator'),
    },
    mcp: { enabled: get('mcp.enabled'), path: get('mcp.path') },
    client: { serve: get('client.serve') },
    admin: { enabled: get('admin.enabled'), path: get('admin.path'), title: get<string | undefined>('admin.title') },
    searchIndex: resolveSearchIndex(config, env),
  };
}

function httpCacheSettings(get: Get): Settings['httpCache'] {
  return {
    headers: {
      etag: get('http_cache.etag'),
      max_age: get('http_cache.max_age'),
      shared_max_age: get('http_cache.shared_max_age'),
      vary: get('http_cache.vary'),
      public: get('http_cache.public'),
      stale_while_revalidate: get('http_cache.stale_while_revalidate'),
    },
    inProcessMaxBytes: get('http_cache.in_process.max_bytes'),
    invalidation: {
      enabled: get('http_cache.invalidation.enabled'),
      urls: get('http_cache.invalidation.urls'),
      purger: get('http_cache.invalidation.purger'),
      tagsHeader: get('http_cache.invalidation.tags_header'),
      timeout: get('http_cache.invalidation.timeout'),
    },
  };
}
