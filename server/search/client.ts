/**
 * The connection to the search engine: the OpenSearch JavaScript client (`@opensearch-project/opensearch`), which
 * speaks the HTTP API Elasticsearch and OpenSearch share and, unlike Elasticsearch's own client, does not refuse
 * an engine that does not say it is Elasticsearch (ZincSearch). It builds every request (search bodies, `_bulk`
 * lines); nothing here writes a query string by hand. No retries: a request that fails or passes the timeout is
 * given up at once (docs/elasticsearch.md says what follows).
 */
import { createRequire } from 'node:module';
import type * as OpenSearch from '@opensearch-project/opensearch';
import type { SearchIndexSettings } from '../metadata/types.js';
import { HttpError } from '../protocol/errors.js';
import type { Dialect } from './mapping.js';

export type SearchClient = OpenSearch.Client;

/**
 * The client's package, loaded with the first client: it costs some 170 ms of CPU, which every command of an API
 * without a search index (most) would pay at start-up for nothing.
 */
const openSearch = (): typeof OpenSearch =>
  createRequire(import.meta.url)('@opensearch-project/opensearch') as typeof OpenSearch;

export function searchClient(settings: SearchIndexSettings): SearchClient {
  const auth =
    settings.username !== undefined ? { username: settings.username, password: settings.password ?? '' } : undefined;
  const { Client } = openSearch();
  return new Client({ nodes: settings.hosts, auth, requestTimeout: settings.timeout, maxRetries: 0 });
}

/**
 * Which dialect of mappings the engine takes: ZincSearch answers its root document with the node name `zinc`
 * and no Lucene version; anything else is taken for Elasticsearch or OpenSearch.
 */
export async function dialectOf(client: SearchClient): Promise<Dialect> {
  const { body } = await client.info();
  const info = body as { name?: string; version?: { lucene_version?: string } };
  return info.name === 'zinc' && info.version?.lucene_version === 'N/A' ? 'zincsearch' : 'elasticsearch';
}

/** A read the engine did not answer: 503, as a store that cannot be reached. */
export const indexUnavailable = (): HttpError =>
  new HttpError(503, 'The search index cannot be reached; retry later.', { headers: { 'Retry-After': '5' } });

/** Whether the engine said the index does not exist (it was never created: nothing was written or reindexed). */
export const missingIndex = (e: unknown): boolean =>
  (e as { meta?: { statusCode?: number } }).meta?.statusCode === 404 ||
  /index_not_found|does not exist/i.test(String((e as { meta?: { body?: unknown } }).meta?.body ?? ''));
