/**
 * The query parameters of a JSON:API request (docs/behaviour.md, "JSON:API"), as API Platform reads them:
 * - `page[page]`, `page[itemsPerPage]` (the `page` family, under the pagination parameter names) are the
 *   pagination parameters; a plain `page=2` works too;
 * - `sort=title,-id` is the order filter's `order[title]=asc&order[id]=desc`: a field no order filter of
 *   the operation covers, or any `sort` without one, answers 400 as JSON:API requires;
 * - `include=author,coauthors.publisher` names relationship paths whose items join the document's `included`
 *   (every item along a path: the coauthors and their publishers), each segment a relationship the items
 *   before it show; `fields[Book]=title,author` keeps only those members of that type's objects.
 */
import { optionValue } from '../../metadata/options.js';
import { badRequest } from '../../protocol/errors.js';
import { itemOperation } from '../../protocol/iri.js';
import type { QueryParams } from '../../protocol/query.js';
import { shownProperties } from '../../metadata/property-access.js';
import type { ApiMetadata, OperationMetadata } from '../../metadata/types.js';
import type { JsonApiRequest } from '../state.js';

/** The query the pipeline reads (pagination and order filter), and what it asks of the document. */
export function jsonApiQuery(
  api: ApiMetadata,
  op: OperationMetadata,
  query: QueryParams,
): { query: QueryParams; request: JsonApiRequest } {
  const out: QueryParams = { ...query };
  const page = query.page;
  if (isObject(page)) {
    delete out.page;
    Object.assign(out, page);
  }
  if (query.sort !== undefined) {
    delete out.sort;
    out[api.settings.orderParameter] = {
      ...(isObject(query[api.settings.orderParameter]) ? (query[api.settings.orderParameter] as object) : {}),
      ...sortOrder(api, op, query.sort),
    };
  }
  const paths = typeof query.include === 'string' && query.include !== '' ? query.include.split(',') : [];
  const include = [...new Set(paths)].map((path) => includePath(api, op, path));
  const fields = new Map<string, Set<string>>();
  if (query.fields !== undefined) {
    if (!isObject(query.fields))
      throw badRequest('The "fields" parameter must name a type: fields[Book]=title,author.');
    for (const [type, list] of Object.entries(query.fields)) {
      if (typeof list !== 'string') throw badRequest(`The "fields[${type}]" parameter must be a comma-separated list.`);
      fields.set(type, new Set(list.split(',').filter((f) => f !== '')));
    }
  }
  return { query: out, request: { include, fields } };
}

/**
 * `author.publisher` as its segments, each a relationship shown where it stands: the first by the operation,
 * the next ones by the item Get of the resource the previous one points to (the shape included items take).
 */
function includePath(api: ApiMetadata, op: OperationMetadata, path: string): string[] {
  const segments = path.split('.');
  let shown = shownProperties(op, api.settings);
  let shortName = op.resource.shortName;
  for (const name of segments) {
    const relation = shown.find((p) => p.name === name && p.relation)?.relation;
    const target = relation === undefined ? undefined : api.resource(relation);
    const via = target && itemOperation(target);
    if (!target || !via)
      throw badRequest(
        `The relationship path "${path}" cannot be included: "${name}" is not a relationship ${shortName} shows.`,
      );
    shown = shownProperties(via, api.settings);
    shortName = target.shortName;
  }
  return segments;
}

/** `title,-id` as the order filter's `{ title: 'asc', id: 'desc' }`, each field one an order filter of the operation covers. */
function sortOrder(api: ApiMetadata, op: OperationMetadata, sort: unknown): Record<string, string> {
  if (typeof sort !== 'string') throw badRequest('The "sort" parameter must be a comma-separated list of fields.');
  const sortable = new Set<string>();
  for (const name of optionValue(op, 'filters') ?? []) {
    const filter = api.filters.get(name);
    if (filter?.kind === 'order') for (const p of filter.properties) sortable.add(p.name);
  }
  const order: Record<string, string> = {};
  for (const entry of sort.split(',')) {
    const field = entry.startsWith('-') ? entry.slice(1) : entry;
    if (!sortable.has(field))
      throw badRequest(`Sorting by "${field}" is not supported: no order filter of this operation covers it.`);
    order[field] = entry.startsWith('-') ? 'desc' : 'asc';
  }
  return order;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
