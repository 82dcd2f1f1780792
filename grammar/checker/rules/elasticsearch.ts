/**
 * `elasticsearch` (docs/elasticsearch.md): the operations that read the search index (Get and GetCollection with
 * `elasticsearch: true`, written on them or on their resource) may only have the filters the index answers; the
 * filters only the index answers (match, term) are refused elsewhere; the index keys documents by the identifier;
 * on other operations, and beside a custom provider, the option has no effect; `stateOptions` has an effect only
 * through its `index` key.
 */
import type * as A from '../../ast.js';
import { INDEX_FILTER_KINDS, INDEX_ONLY_FILTER_KINDS } from '../../catalogue/filters.js';
import { INDEX_READ_KINDS, LISTING_KINDS } from '../../catalogue/types.js';
import { wordOf, type ModelOperation, type ModelResource } from '../../model.js';
import type { CheckContext } from '../check-context.js';
import { COMPATIBILITY_HINT } from './effects.js';
import { effective } from './operations.js';

const isTrue = (entry: A.Entry | undefined): boolean => entry?.value?.kind === 'bool' && entry.value.value;

/** Whether the operation's data comes from the search index. */
export function readsIndex(resource: ModelResource, op: ModelOperation): boolean {
  const read = effective(resource, op, 'read')?.value;
  return (
    INDEX_READ_KINDS.some((k) => k === op.kind) &&
    isTrue(effective(resource, op, 'elasticsearch')) &&
    !effective(resource, op, 'provider') &&
    !(read?.kind === 'bool' && !read.value)
  );
}

export function checkElasticsearch(ctx: CheckContext): void {
  const reported = new Set<A.Value>(); // a resource's `filters` item is shared by its operations: reported once
  for (const resource of ctx.model.resources.values()) {
    const indexed = resource.operations.some((op) => readsIndex(resource, op));
    const option = resource.options.get('elasticsearch');
    if (indexed && !resource.identifier) {
      const at = option ?? resource.operations.map((op) => op.options.get('elasticsearch')).find(isTrue);
      ctx.report(
        'index-identifier',
        (at?.key ?? resource.decl.name!).range,
        `'${resource.name}' has no identifier: the search index keys its documents by it (declare one property as the identifier)`,
      );
    }
    for (const op of resource.operations) {
      checkOperationOption(ctx, resource, op);
      if (LISTING_KINDS.some((k) => k === op.kind)) checkFilters(ctx, resource, op, reported);
    }
    checkStateOptions(ctx, resource, indexed);
  }
}

function checkOperationOption(ctx: CheckContext, resource: ModelResource, op: ModelOperation): void {
  const own = op.options.get('elasticsearch');
  if (!isTrue(own)) return;
  if (!INDEX_READ_KINDS.some((k) => k === op.kind))
    ctx.report(
      'option-ineffective',
      own!.key.range,
      `'elasticsearch' on ${op.kind} has no effect: only Get and GetCollection read the index; writes go to the store, and the index follows every write of '${resource.name}'`,
    );
  else if (effective(resource, op, 'provider'))
    ctx.report(
      'option-ineffective',
      own!.key.range,
      `'elasticsearch' has no effect beside a custom provider: the provider supplies the data`,
    );
}

function checkFilters(ctx: CheckContext, resource: ModelResource, op: ModelOperation, reported: Set<A.Value>): void {
  const list = effective(resource, op, 'filters')?.value;
  if (list?.kind !== 'array') return;
  const fromIndex = readsIndex(resource, op);
  for (const item of list.items) {
    const name = wordOf(item);
    const kind = name === undefined ? undefined : ctx.model.filters.get(name)?.kind;
    if (kind === undefined || reported.has(item)) continue;
    if (fromIndex && !INDEX_FILTER_KINDS.includes(kind)) {
      reported.add(item);
      ctx.report(
        'index-filter',
        item.range,
        `filter '${name}' (${kind}) cannot be answered by the search index that ${op.kind} of '${resource.name}' reads (elasticsearch: true): use ${INDEX_FILTER_KINDS.slice(0, -1).join(', ')} or ${INDEX_FILTER_KINDS.at(-1)} filters`,
      );
    } else if (!fromIndex && INDEX_ONLY_FILTER_KINDS.includes(kind)) {
      reported.add(item);
      ctx.report(
        'index-filter',
        item.range,
        `filter '${name}' (${kind}) is answered by the search index only, and ${op.kind} of '${resource.name}' reads the store: set elasticsearch: true on it or its resource`,
      );
    }
  }
}

function checkStateOptions(ctx: CheckContext, resource: ModelResource, indexed: boolean): void {
  const entries = [
    resource.options.get('stateOptions'),
    ...resource.operations.map((o) => o.options.get('stateOptions')),
  ];
  for (const entry of entries) {
    if (entry?.value?.kind !== 'object') continue;
    for (const e of entry.value.entries) {
      if (e.key.text !== 'index')
        ctx.report('no-effect', e.key.range, `'stateOptions.${e.key.text}' is ${COMPATIBILITY_HINT}`);
      else if (!indexed)
        ctx.report(
          'option-ineffective',
          e.key.range,
          `'stateOptions.index' has no effect: no operation of '${resource.name}' reads the search index (elasticsearch: true)`,
        );
      else if (e.value?.kind !== 'string' || !/^[a-z0-9][a-z0-9_.-]*$/.test(e.value.value))
        ctx.report(
          'invalid-value',
          (e.value ?? e.key).range,
          "'stateOptions.index' must be an index name: a lower-case letter or digit, then also '_', '-' or '.'",
        );
    }
  }
}
