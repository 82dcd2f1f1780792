/**
 * The grid of filters-grid.test.ts: every filter kind (search with each strategy, range, order, exists,
 * boolean, date with each null strategy) × every property type (scalars, `json`, lists of scalars, a
 * relation, a list of relations, each required and nullable), the `.api` file that declares the cells the
 * checker accepts, and a reference evaluation of each filter over the items a test created — written from
 * docs/behaviour.md ("Filters and QUERY"), independently of the server's code.
 */

export type Base = 'int' | 'number' | 'string' | 'bool' | 'datetime' | 'date' | 'json' | 'relation';
export type Kind = 'search' | 'range' | 'order' | 'exists' | 'boolean' | 'date';

export interface GridProperty {
  name: string;
  base: Base;
  list: boolean;
  required: boolean;
  /** As written in the `.api` file: `int`, `Target[]`. */
  declared: string;
}

export interface GridFilter {
  name: string;
  kind: Kind;
  /** The per-property setting: search strategy, date null strategy. */
  setting?: string;
}

const BASES: Base[] = ['int', 'number', 'string', 'bool', 'datetime', 'date', 'json', 'relation'];

/**
 * Every property of the grid: each base type alone and as a list (not `json[]`), required and nullable; and
 * a list whose name starts with `_` (the MongoDB store keeps such fields under another name).
 */
export const PROPERTIES: GridProperty[] = [
  ...BASES.flatMap((base) =>
    (base === 'json' ? [false] : [false, true]).flatMap((list) =>
      [true, false].map((required) => {
        const type = base === 'relation' ? 'Target' : base;
        return {
          name: `${base}${list ? 's' : ''}_${required ? 'r' : 'n'}`,
          base,
          list,
          required,
          declared: `${type}${list ? '[]' : ''}`,
        };
      }),
    ),
  ),
  { name: '_labels', base: 'string', list: true, required: false, declared: 'string[]' },
];

export const STRATEGIES = [
  'exact',
  'partial',
  'start',
  'end',
  'word_start',
  'iexact',
  'ipartial',
  'istart',
  'iend',
  'iword_start',
] as const;
export const NULL_STRATEGIES = [
  'exclude_null',
  'include_null_before',
  'include_null_after',
  'include_null_before_and_after',
] as const;

export const FILTERS: GridFilter[] = [
  ...STRATEGIES.map((s) => ({ name: `search_${s}`, kind: 'search' as const, setting: s })),
  { name: 'range', kind: 'range' },
  { name: 'order', kind: 'order' },
  { name: 'exists', kind: 'exists' },
  { name: 'boolean', kind: 'boolean' },
  ...NULL_STRATEGIES.map((s) => ({ name: `date_${s}`, kind: 'date' as const, setting: s })),
];

/**
 * Which cells have a meaning (docs/behaviour.md and the catalogue's filter table): the checker accepts
 * exactly these and refuses the others where the filter names the property.
 */
export function applies(kind: Kind, p: GridProperty): boolean {
  switch (kind) {
    case 'search':
      return p.base !== 'json';
    case 'range':
      return !p.list && ['int', 'number', 'datetime', 'date'].includes(p.base);
    case 'order':
      return !p.list && p.base !== 'json';
    case 'exists':
      return true;
    case 'boolean':
      return !p.list && p.base === 'bool';
    case 'date':
      return !p.list && (p.base === 'datetime' || p.base === 'date');
  }
}

/** A filter declaration on some properties. */
export function filterDecl(f: GridFilter, props: GridProperty[]): string {
  const body = f.setting
    ? `{ ${props.map((p) => `${p.name}: "${f.setting}"`).join(', ')} }`
    : `[${props.map((p) => `"${p.name}"`).join(', ')}]`;
  return `filter ${f.name}: ${f.kind} { properties: ${body} }`;
}

/** The name of the parameter that feeds a filter one property. */
export const PARAMETER = (p: GridProperty): string => `p_${p.name}`;

/**
 * The `.api` file: `Target`, `Thing` with every grid property, and per filter a GET and a QUERY listing
 * under `/grid/<filter>`, and (`named`) two more under `/named/<filter>` where named parameters feed it.
 */
export function apiFile(filters: { filter: GridFilter; props: GridProperty[] }[], named = true): string {
  const props = PROPERTIES.map((p) => `    ${p.name}: ${p.declared}${p.required ? ' { required: true }' : ''}`);
  const listings = filters.flatMap(({ filter, props: p }) => {
    // The same filter fed by named parameters, one per property (`p_int_r=…`).
    const parameters = p.map((x) => `${PARAMETER(x)}: { filter: "${filter.name}", property: "${x.name}" }`).join(', ');
    const direct = [
      `    GetCollection get_${filter.name} { uriTemplate: "/grid/${filter.name}", filters: ["${filter.name}", "batchOnly"] }`,
      `    Query query_${filter.name} { uriTemplate: "/grid/${filter.name}", filters: ["${filter.name}", "batchOnly"] }`,
    ];
    if (!named) return direct;
    return [
      ...direct,
      `    GetCollection get_named_${filter.name} { uriTemplate: "/named/${filter.name}", filters: ["batchOnly"], parameters: { ${parameters} } }`,
      `    Query query_named_${filter.name} { uriTemplate: "/named/${filter.name}", filters: ["batchOnly"], parameters: { ${parameters} } }`,
    ];
  });
  return [
    'api "Filter grid" { version: "1.0.0" }',
    'config { defaults { pagination_items_per_page: 100 } }',
    'filter batchOnly: search { properties: { batch: "exact" } }',
    ...filters.map(({ filter, props: p }) => filterDecl(filter, p)),
    'resource Target {',
    '  properties {\n    id: int { identifier: true }\n    name: string\n  }',
    '  operations {\n    Post\n    Get\n  }',
    '}',
    'resource Thing {',
    '  properties {',
    '    id: int { identifier: true }',
    '    batch: int { required: true }',
    ...props,
    '  }',
    '  operations {',
    '    Post',
    '    Get',
    ...listings,
    '  }',
    '}',
    '',
  ].join('\n');
}

// ---- Reference evaluation -------------------------------------------------------------------------

export type Item = Record<string, unknown> & { id: number };

/** A criterion in the URL's shape: a value, a list (`p[]=…`) or an object (`p[gt]=…`). */
export type Raw = string | string[] | Record<string, string>;

const NUMERIC = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

function boolOf(v: unknown): boolean | undefined {
  const s = typeof v === 'string' ? v.toLowerCase() : undefined;
  if (s === 'true' || s === '1') return true;
  return s === 'false' || s === '0' ? false : undefined;
}

/** Milliseconds of an ISO date or date-time (`YYYY-MM-DD` is midnight UTC), undefined when it is none. */
function instant(s: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2}))?$/.test(s)) return undefined;
  const t = Date.parse(s.length === 10 ? `${s}T00:00:00Z` : s);
  return Number.isNaN(t) ? undefined : t;
}

/** A criterion value read as the property's type (a comparable JS value), undefined when it cannot be one. */
function typed(base: Base, s: string): number | string | boolean | undefined {
  switch (base) {
    case 'int':
      return /^-?\d{1,15}$/.test(s.trim()) ? Number(s) : undefined;
    case 'number': {
      const n = NUMERIC.test(s.trim()) ? Number(s) : NaN;
      return Number.isFinite(n) ? n : undefined;
    }
    case 'bool':
      return boolOf(s);
    case 'datetime':
      return instant(s);
    case 'date': {
      const t = instant(s);
      return t === undefined ? undefined : new Date(t).toISOString().slice(0, 10);
    }
    case 'relation':
      return s.startsWith('/') ? s : `/targets/${s}`;
    default:
      return s;
  }
}

/** A stored value as `typed` reads criteria: datetimes as instants. */
const stored = (base: Base, v: unknown): unknown => (base === 'datetime' && typeof v === 'string' ? instant(v) : v);

const present = (v: unknown): boolean => v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0);

function textMatch(strategy: string, value: string, wanted: string): boolean {
  const ci = strategy.startsWith('i');
  const mode = ci ? strategy.slice(1) : strategy;
  const x = ci ? value.toLowerCase() : value;
  const v = ci ? wanted.toLowerCase() : wanted;
  switch (mode) {
    case 'exact':
      return x === v;
    case 'partial':
      return x.includes(v);
    case 'start':
      return x.startsWith(v);
    case 'end':
      return x.endsWith(v);
    default:
      return x.startsWith(v) || x.includes(` ${v}`);
  }
}

/** The items a search criterion keeps (all when none of its values can be the property's type). */
function search(p: GridProperty, strategy: string, raw: Raw, items: Item[]): Item[] {
  // An object (`p[x]=…`) holds no value.
  let values: string[] = [];
  if (typeof raw === 'string') values = [raw];
  else if (Array.isArray(raw)) values = raw;
  const tests: ((element: unknown) => boolean)[] = [];
  for (const v of values) {
    if (p.base === 'string') tests.push((e) => typeof e === 'string' && textMatch(strategy, e, v));
    else {
      const t = typed(p.base, v);
      if (t !== undefined) tests.push((e) => stored(p.base, e) === t);
    }
  }
  if (tests.length === 0) return items;
  const holds = (e: unknown): boolean => e !== undefined && e !== null && tests.some((t) => t(e));
  return items.filter((item) => {
    const v = item[p.name];
    return p.list ? Array.isArray(v) && v.some(holds) : holds(v);
  });
}

type Compare = 'gt' | 'gte' | 'lt' | 'lte';
const COMPARE: Record<Compare, (a: number | string, b: number | string) => boolean> = {
  gt: (a, b) => a > b,
  gte: (a, b) => a >= b,
  lt: (a, b) => a < b,
  lte: (a, b) => a <= b,
};

function bounded(p: GridProperty, op: Compare, bound: number | string, v: unknown): boolean {
  const x = stored(p.base, v);
  return (typeof x === 'number' || typeof x === 'string') && COMPARE[op](x, bound);
}

function range(p: GridProperty, raw: Raw, items: Item[]): Item[] {
  if (typeof raw !== 'object' || Array.isArray(raw)) return items;
  const tests: ((v: unknown) => boolean)[] = [];
  for (const [op, value] of Object.entries(raw)) {
    if (op === 'between') {
      const parts = value.split('..');
      if (parts.length !== 2) continue;
      const [lo, hi] = parts.map((x) => typed(p.base, x));
      if (lo === undefined || hi === undefined || typeof lo === 'boolean' || typeof hi === 'boolean') continue;
      tests.push((v) => bounded(p, 'gte', lo, v) && bounded(p, 'lte', hi, v));
    } else if (op in COMPARE) {
      const t = typed(p.base, value);
      if (t !== undefined && typeof t !== 'boolean') tests.push((v) => bounded(p, op as Compare, t, v));
    }
  }
  return items.filter((item) => tests.every((t) => t(item[p.name])));
}

const DATE_COMPARE: Record<string, Compare> = {
  after: 'gte',
  before: 'lte',
  strictly_after: 'gt',
  strictly_before: 'lt',
};

function date(p: GridProperty, nulls: string, raw: Raw, items: Item[]): Item[] {
  if (typeof raw !== 'object' || Array.isArray(raw)) return items;
  const tests: ((v: unknown) => boolean)[] = [];
  for (const [op, value] of Object.entries(raw)) {
    const compare = DATE_COMPARE[op];
    const t = compare && typed(p.base, value);
    if (!compare || t === undefined || typeof t === 'boolean') continue;
    const before = op === 'before' || op === 'strictly_before';
    const nullIncluded =
      nulls === 'include_null_before_and_after' ||
      (nulls === 'include_null_before' && before) ||
      (nulls === 'include_null_after' && !before);
    tests.push((v) => (present(v) ? bounded(p, compare, t, v) : nullIncluded));
  }
  return items.filter((item) => tests.every((t) => t(item[p.name])));
}

/** Nulls first (the smallest), ties by identifier ascending (the default order that follows the filter's). */
function order(p: GridProperty, raw: Raw, items: Item[]): Item[] {
  const dir = typeof raw === 'string' ? raw.trim().toLowerCase() : '';
  if (dir !== 'asc' && dir !== 'desc') return items;
  const sign = dir === 'asc' ? 1 : -1;
  const key = (item: Item): unknown => (present(item[p.name]) ? item[p.name] : null);
  return [...items].sort((a, b) => {
    const x = key(a);
    const y = key(b);
    if (x !== y) {
      if (x === null) return -sign;
      if (y === null) return sign;
      if ((x as number) < (y as number)) return -sign;
      if ((x as number) > (y as number)) return sign;
    }
    return a.id - b.id;
  });
}

/** The items (in order) a filter's criterion on a property answers, from `items` in identifier order. */
export function reference(f: GridFilter, p: GridProperty, raw: Raw, items: Item[]): Item[] {
  switch (f.kind) {
    case 'search':
      return search(p, f.setting!, raw, items);
    case 'range':
      return range(p, raw, items);
    case 'date':
      return date(p, f.setting!, raw, items);
    case 'order':
      return order(p, raw, items);
    case 'exists': {
      const b = typeof raw === 'string' ? boolOf(raw) : undefined;
      return b === undefined ? items : items.filter((item) => present(item[p.name]) === b);
    }
    case 'boolean': {
      const b = typeof raw === 'string' ? boolOf(raw) : undefined;
      return b === undefined ? items : items.filter((item) => item[p.name] === b);
    }
  }
}

/** Where the criterion stands in the URL and in a QUERY body: under the property, or `order[p]`, `exists[p]`. */
export function criteria(f: GridFilter, p: GridProperty, raw: Raw): Record<string, unknown> {
  if (f.kind === 'order') return { order: { [p.name]: raw } };
  if (f.kind === 'exists') return { exists: { [p.name]: raw } };
  return { [p.name]: raw };
}

/** A query string of criteria: `a=1`, `a[]=1&a[]=2`, `a[gt]=1`. */
export function queryString(c: Record<string, unknown>): string {
  const parts: string[] = [];
  const add = (key: string, v: unknown): void => {
    if (Array.isArray(v)) for (const x of v) add(`${key}[]`, x);
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) add(`${key}[${k}]`, x);
    else parts.push(`${key}=${encodeURIComponent(String(v))}`);
  };
  for (const [k, v] of Object.entries(c)) add(k, v);
  return parts.join('&');
}
