/**
 * The search index of `elasticsearch` resources (docs/elasticsearch.md): which operations read it, which
 * resources it mirrors, the name of a resource's index, and the connection settings of `config elasticsearch`.
 */
import * as A from '../../grammar/ast.js';
import { configEntry } from '../../grammar/model.js';
import { INDEX_READ_KINDS, SETTINGS } from '../../grammar/catalogue/index.js';
import { optionValue, perOperation } from './options.js';
import type { ApiMetadata, OperationMetadata, ResourceMetadata, SearchIndexSettings } from './types.js';

export function resolveSearchIndex(config: A.ObjectValue | undefined, env: NodeJS.ProcessEnv): SearchIndexSettings {
  const get = <T>(path: string): T => {
    const value = configEntry(config, `elasticsearch.${path}`)?.value;
    return (value ? A.toPlain(value) : SETTINGS.find((s) => s.path === `elasticsearch.${path}`)?.default) as T;
  };
  const fromEnv = (name: string | undefined): string | undefined => (name ? env[name] || undefined : undefined);
  const url = env.APIDSL_ELASTICSEARCH_URL?.trim();
  return {
    hosts: url ? url.split(',').map((h) => h.trim()) : get<string[]>('hosts'),
    username: fromEnv(get('username_env')),
    password: fromEnv(get('password_env')),
    // Set, even to "", it wins: one file served against one engine by several deployments, each its own indexes.
    indexPrefix: env.APIDSL_ELASTICSEARCH_INDEX_PREFIX ?? get('index_prefix'),
    timeout: get('timeout'),
  };
}

/**
 * Whether the operation's data comes from the search index: a REST Get or GetCollection with `elasticsearch: true`
 * and the default provider (the checker says the same, grammar/checker/rules/elasticsearch.ts). GraphQL's
 * operations, which run as Get and GetCollection too, read the store.
 */
export const readsIndex = perOperation(
  (op: OperationMetadata, _: void): boolean =>
    INDEX_READ_KINDS.includes(op.kind) &&
    op.resource.operations.includes(op) &&
    !op.provider &&
    !op.hidden &&
    optionValue(op, 'elasticsearch') === true &&
    op.resource.identifier !== undefined,
);

/** Whether the index mirrors the resource: some operation of it reads the index. */
export const indexedResource = (resource: ResourceMetadata): boolean =>
  resource.operations.some((op) => readsIndex(op, undefined));

/** The resources the index mirrors. */
export const indexedResources = (api: ApiMetadata): ResourceMetadata[] => api.resources.filter(indexedResource);

/**
 * The index of a resource: `stateOptions.index` (on the resource, else on an operation that reads the index),
 * else API Platform's name (the short name tableized: `BookReview` → `book_review`), after `index_prefix`.
 */
export function indexName(resource: ResourceMetadata, prefix: string): string {
  const named = [
    resource.options,
    ...resource.operations.filter((op) => readsIndex(op, undefined)).map((op) => op.options),
  ]
    .map((options) => (options.stateOptions as Record<string, unknown> | undefined)?.index)
    .find((index): index is string => typeof index === 'string');
  return prefix + (named ?? tableized(resource.shortName));
}

const tableized = (name: string): string =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
