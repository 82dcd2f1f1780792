/**
 * Filters (reference-behaviour §8) turned into the store-neutral query: conditions and sort
 * clauses. Criteria come from the URL (GET) or the body (QUERY) in the same shape, through
 * the operation's `filters` (URL syntax: `title=…`, `price[gt]=…`, `order[title]=desc`,
 * `exists[x]=true`) and its `parameters` (a named parameter feeding one filter on one
 * property). Malformed or unknown values are ignored, as API Platform does.
 */
import { badRequest } from '../http/errors.js';
import { fillTemplate, iriPath, itemOperation } from '../http/iri.js';
import type { QueryParams } from '../http/query.js';
import type { ApiMetadata, FilterMetadata, OperationMetadata, PropertyMetadata, ResourceMetadata } from '../metadata/types.js';
import type { Condition, Sort } from '../store/types.js';
import { normalizeDateTime } from './deserialize.js';

export interface FilterQuery {
  where: Condition[];
  sort: Sort;
}

export interface Ctx {
  api: ApiMetadata;
  resource: ResourceMetadata;
}

/** What PHP's is_numeric() accepts (no hexadecimal, no `Infinity`), as API Platform checks. */
/** Values one search filter takes at once (`?title[]=a&title[]=b…`, or a list in a QUERY body). */
export const MAX_FILTER_VALUES = 1000;

const NUMERIC = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

const RANGE_OPS = { lt: 'lt', lte: 'lte', gt: 'gt', gte: 'gte' } as const;
const DATE_OPS = { after: 'gte', before: 'lte', strictly_after: 'gt', strictly_before: 'lt' } as const;

const asObject = (v: unknown): Record<string, unknown> | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);
const scalar = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined);

function boolOf(v: unknown): boolean | undefined {
  const s = scalar(v)?.toLowerCase();
  return s === 'true' || s === '1' ? true : s === 'false' || s === '0' ? false : undefined;
}

/** A criterion's value as the property's stored type, or undefined when it cannot be one. */
export function typedValue(ctx: Ctx, prop: PropertyMetadata, raw: unknown): unknown {
  let s = scalar(raw);
  if (s === undefined) return undefined;
  // The identifier may be given by the item's IRI (`?id=/dummies/8`), as API Platform accepts.
  if (prop.identifier && s.startsWith('/')) s = identifierFromIri(ctx.resource, prop.name, s) ?? s;
  switch (prop.type) {
    case 'int':
      return /^-?\d{1,15}$/.test(s.trim()) ? Number(s) : undefined;
    case 'number': {
      // A value that overflows (1e400) is no number a store can compare with: ignored, as a non-numeric one.
      const n = NUMERIC.test(s.trim()) ? Number(s) : NaN;
      return Number.isFinite(n) ? n : undefined;
    }
    case 'bool':
      return boolOf(s);
    case 'datetime':
      return normalizeDateTime(s);
    case 'date': {
      const d = normalizeDateTime(s);
      return d?.slice(0, 10);
    }
    default:
      return prop.relation ? relationIri(ctx, prop.relation, s) : s;
  }
}

/** The identifier's value in an item IRI of the resource, if the IRI is one. */
function identifierFromIri(resource: ResourceMetadata, idName: string, iri: string): string | undefined {
  const template = itemOperation(resource)?.path ?? resource.itemPath;
  if (!template) return undefined;
  const names: string[] = [];
  const pattern = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{([^{}]+)\}/g, (_, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  const m = new RegExp(`^${pattern}$`).exec(iri);
  const i = names.indexOf(idName);
  return m && i >= 0 ? decodeURIComponent(m[i + 1]) : undefined;
}

/** `?author=/authors/1` or `?author=1`: a relation is matched by IRI (stored as a path, iri.ts), an id builds one. */
function relationIri(ctx: Ctx, target: string, value: string): string {
  if (value.startsWith('/') || /^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return iriPath(value);
  const resource = ctx.api.resource(target);
  const template = resource && (itemOperation(resource)?.path ?? resource.itemPath);
  const id = resource?.identifier?.name;
  return (template && id && fillTemplate(template, (name) => (name === id ? value : undefined))) || value;
}

function searchConditions(ctx: Ctx, prop: PropertyMetadata, strategy: string, raw: unknown): Condition[] {
  const values = (Array.isArray(raw) ? raw : [raw]).map(scalar).filter((v): v is string => v !== undefined);
  if (values.length === 0) return [];
  if (values.length > MAX_FILTER_VALUES) {
    throw badRequest(`Too many values for the "${prop.name}" filter: ${values.length} given, at most ${MAX_FILTER_VALUES} are accepted.`);
  }
  const caseInsensitive = strategy.startsWith('i');
  const mode = (caseInsensitive ? strategy.slice(1) : strategy) as 'exact' | 'partial' | 'start' | 'end' | 'word_start';
  if ((mode === 'exact' && !caseInsensitive) || prop.type !== 'string' || prop.relation) {
    const typed = values.map((v) => typedValue(ctx, prop, v)).filter((v) => v !== undefined);
    if (typed.length === 0) return []; // no value the property can hold: ignored, as API Platform does
    return [typed.length === 1 ? { op: 'eq', field: prop.name, value: typed[0] } : { op: 'in', field: prop.name, values: typed }];
  }
  const matches: Condition[] = values.map((value) => ({ op: 'match', field: prop.name, mode, value, caseInsensitive }));
  return matches.length === 1 ? matches : [{ op: 'or', conditions: matches }];
}

function rangeConditions(ctx: Ctx, prop: PropertyMetadata, raw: unknown): Condition[] {
  const bounds = asObject(raw);
  if (!bounds) return [];
  const out: Condition[] = [];
  for (const [op, value] of Object.entries(bounds)) {
    if (op === 'between') {
      const parts = scalar(value)?.split('..');
      if (!parts || parts.length !== 2) continue;
      const [lo, hi] = parts.map((p) => typedValue(ctx, prop, p));
      if (lo === undefined || hi === undefined) continue;
      out.push({ op: 'gte', field: prop.name, value: lo }, { op: 'lte', field: prop.name, value: hi });
    } else if (op in RANGE_OPS) {
      const typed = typedValue(ctx, prop, value);
      if (typed !== undefined && (typeof typed === 'number' || prop.type === 'datetime' || prop.type === 'date')) {
        out.push({ op: RANGE_OPS[op as keyof typeof RANGE_OPS], field: prop.name, value: typed });
      }
    }
  }
  return out;
}

function dateConditions(ctx: Ctx, prop: PropertyMetadata, strategy: string, raw: unknown): Condition[] {
  const bounds = asObject(raw);
  if (!bounds) return [];
  const out: Condition[] = [];
  for (const [op, value] of Object.entries(bounds)) {
    if (!(op in DATE_OPS)) continue;
    const typed = typedValue(ctx, { ...prop, type: prop.type === 'date' ? 'date' : 'datetime' }, value);
    if (typed === undefined) continue;
    const cond: Condition = { op: DATE_OPS[op as keyof typeof DATE_OPS], field: prop.name, value: typed };
    const before = op === 'before' || op === 'strictly_before';
    // Null strategies: where null dates stand relative to every bound.
    const nullIncluded =
      strategy === 'include_null_before_and_after' || (strategy === 'include_null_before' && before) || (strategy === 'include_null_after' && !before);
    out.push(nullIncluded ? { op: 'or', conditions: [cond, { op: 'exists', field: prop.name, exists: false }] } : cond);
  }
  return out;
}

/** Conditions of one filter on one property for its criterion (in URL shape). */
function conditionsOf(ctx: Ctx, filter: FilterMetadata, prop: PropertyMetadata, setting: string | undefined, criteria: QueryParams): Condition[] {
  const settings = ctx.api.settings;
  switch (filter.kind) {
    case 'search':
      return criteria[prop.name] === undefined ? [] : searchConditions(ctx, prop, setting ?? 'exact', criteria[prop.name]);
    case 'range':
      return rangeConditions(ctx, prop, criteria[prop.name]);
    case 'date':
      return dateConditions(ctx, prop, setting ?? 'exclude_null', criteria[prop.name]);
    case 'boolean': {
      const b = boolOf(criteria[prop.name]);
      return b === undefined ? [] : [{ op: 'eq', field: prop.name, value: b }];
    }
    case 'exists': {
      const b = boolOf(asObject(criteria[settings.existsParameter])?.[prop.name]);
      return b === undefined ? [] : [{ op: 'exists', field: prop.name, exists: b }];
    }
    case 'order':
      return [];
  }
}

/** One filter's order clause on one property, or undefined when the value is not a direction. */
function orderOf(filter: FilterMetadata, prop: string, setting: string | undefined, raw: unknown): Sort[number] | undefined {
  const dir = scalar(raw)?.trim().toLowerCase();
  if (dir === 'asc' || dir === 'desc') return { field: prop, direction: dir };
  // The configured default applies to an empty value only; an invalid direction is ignored.
  const fallback = setting?.toLowerCase();
  return filter.kind === 'order' && dir === '' && (fallback === 'asc' || fallback === 'desc') ? { field: prop, direction: fallback } : undefined;
}

const sortable = (p: PropertyMetadata | undefined): p is PropertyMetadata => p !== undefined && !p.array && p.type !== 'json';

/** The conditions and sort clauses of an operation's filters and parameters for some criteria. */
export function filterQuery(api: ApiMetadata, op: OperationMetadata, criteria: QueryParams): FilterQuery {
  const resource = op.resource;
  const ctx: Ctx = { api, resource };
  const propOf = (name: string): PropertyMetadata | undefined => resource.properties.find((p) => p.name === name);
  const where: Condition[] = [];
  const orders: { key: string; clause: Sort[number] }[] = [];
  const orderParam = asObject(criteria[api.settings.orderParameter]) ?? {};

  for (const name of (op.options.filters as string[] | undefined) ?? []) {
    const filter = api.filters.get(name);
    if (!filter) continue;
    for (const { name: propName, setting } of filter.properties) {
      const prop = propOf(propName);
      if (!prop) continue;
      if (filter.kind === 'order') {
        if (propName in orderParam && sortable(prop)) {
          const clause = orderOf(filter, propName, setting, orderParam[propName]);
          if (clause) orders.push({ key: propName, clause });
        }
      } else where.push(...conditionsOf(ctx, filter, prop, setting, criteria));
    }
  }

  const parameters = (op.options.parameters as Record<string, { filter?: string; property?: string }> | undefined) ?? {};
  for (const [param, spec] of Object.entries(parameters)) {
    const filter = spec && api.filters.get(String(spec.filter));
    const propName = spec?.property ?? param;
    const prop = propOf(propName);
    if (!filter || !prop || criteria[param] === undefined) continue;
    const setting = filter.properties.find((p) => p.name === propName)?.setting;
    if (filter.kind === 'order') {
      const clause = sortable(prop) ? orderOf(filter, propName, setting, criteria[param]) : undefined;
      if (clause) orders.push({ key: param, clause });
      continue;
    }
    // The parameter's value stands where the filter's own syntax puts it.
    const shaped: QueryParams =
      filter.kind === 'exists' ? { [api.settings.existsParameter]: { [propName]: criteria[param] } } : { [propName]: criteria[param] };
    where.push(...conditionsOf(ctx, filter, prop, setting, shaped));
  }

  // Order keys in the order the client wrote them (their priority), each field once.
  const keyOrder = Object.keys(orderParam);
  const sorted = orders.sort((a, b) => {
    const ia = keyOrder.indexOf(a.key);
    const ib = keyOrder.indexOf(b.key);
    return (ia < 0 ? Infinity : ia) - (ib < 0 ? Infinity : ib);
  });
  const sort: Sort = [];
  for (const { clause } of sorted) if (!sort.some((s) => s.field === clause.field)) sort.push(clause);
  return { where, sort };
}
