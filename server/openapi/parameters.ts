/**
 * What a client may send to an operation besides its body: path variables, the pagination
 * parameters the operation honours (under the names the settings give them), and the criteria
 * of its filters and named `parameters` — as URL parameters (GET) or as the properties of a
 * QUERY request body. One entry per variable the runtime reads (server/pipeline/filters.ts,
 * server/pipeline/pagination.ts), so the document says exactly what is understood.
 */
import { DATE_OPERATORS, RANGE_OPERATORS, type DateOperator, type RangeOperator } from '../../grammar/catalogue/index.js';
import { optionValue } from '../metadata/options.js';
import type { ApiMetadata, FilterMetadata, OperationMetadata, PropertyMetadata } from '../metadata/types.js';
import type { JsonSchema } from '../pipeline/schema.js';
import { joinText } from './schemas.js';

export interface ParameterObject {
  name: string;
  in: 'query' | 'path' | 'header';
  description: string;
  required: boolean;
  deprecated?: boolean;
  schema: JsonSchema;
  style?: string;
  explode?: boolean;
}


const RANGE_TEXT: Record<RangeOperator, string> = {
  between: 'between two values, both included: `low..high`',
  gt: 'greater than the value',
  gte: 'greater than or equal to the value',
  lt: 'less than the value',
  lte: 'less than or equal to the value',
};
const DATE_TEXT: Record<DateOperator, string> = {
  before: 'on or before the date',
  strictly_before: 'strictly before the date',
  after: 'on or after the date',
  strictly_after: 'strictly after the date',
};
const STRATEGY_TEXT: Record<string, string> = {
  exact: 'equals the value',
  partial: 'contains the value',
  start: 'starts with the value',
  end: 'ends with the value',
  word_start: 'has a word starting with the value',
};
const NULL_TEXT: Record<string, string> = {
  exclude_null: 'Items without a date never match.',
  include_null_before: 'Items without a date count as before every date.',
  include_null_after: 'Items without a date count as after every date.',
  include_null_before_and_after: 'Items without a date always match.',
};

/** The schema of one criterion value for a property, as the URL or a JSON body carries it. */
function valueSchema(p: PropertyMetadata): JsonSchema {
  if (p.relation) return { type: 'string', description: `An IRI of ${p.relation} (or its identifier).` };
  switch (p.type) {
    case 'int':
      return { type: 'integer' };
    case 'number':
      return { type: 'number' };
    case 'bool':
      return { type: 'boolean' };
    case 'datetime':
      return { type: 'string', format: 'date-time' };
    case 'date':
      return { type: 'string', format: 'date' };
    default:
      return { type: 'string' };
  }
}

/** A date bound: a date or date-time (ISO 8601), read in UTC. */
const dateBound = (p: PropertyMetadata): JsonSchema => ({ type: 'string', description: p.type === 'date' ? 'A date, `YYYY-MM-DD`.' : 'A date or date-time (ISO 8601).' });
function rangeBound(p: PropertyMetadata, op: string): JsonSchema {
  if (op === 'between') return { type: 'string', pattern: '^.+\\.\\..+$', examples: ['10..20'] };
  if (p.type === 'datetime' || p.type === 'date') return dateBound(p);
  return p.type === 'int' ? { type: 'integer' } : { type: 'number' };
}
const direction = (): JsonSchema => ({ type: 'string', enum: ['asc', 'desc'] });
const bool = (): JsonSchema => ({ type: 'boolean' });

function searchText(p: PropertyMetadata, strategy: string): string {
  if (p.relation) return `Items whose ${p.name} is the ${p.relation} given by its IRI (\`/…/1\`) or its identifier.`;
  const insensitive = strategy.startsWith('i');
  const mode = insensitive ? strategy.slice(1) : strategy;
  // The runtime compares other types for equality whatever the strategy.
  if (p.type !== 'string') return `Items whose ${p.name} equals the value.`;
  return `Items whose ${p.name} ${STRATEGY_TEXT[mode] ?? STRATEGY_TEXT.exact}${insensitive ? ', ignoring case' : ''}. The value is literal text, never a pattern.`;
}

function orderText(p: PropertyMetadata, setting: string | undefined): string {
  const fallback = setting && ['asc', 'desc'].includes(setting.toLowerCase()) ? ` Any other value sorts ${setting.toLowerCase()}.` : '';
  return `Sorts by ${p.name}: \`asc\` or \`desc\`.${fallback} The order of the sort keys sets their priority.`;
}

/** One URL variable of a filter on a property (the names filters.ts reads). */
interface Variable {
  name: string;
  schema: JsonSchema;
  description: string;
  array?: boolean;
}

function filterVariables(api: ApiMetadata, filter: FilterMetadata, p: PropertyMetadata, setting: string | undefined): Variable[] {
  const s = api.settings;
  switch (filter.kind) {
    case 'search': {
      const text = searchText(p, setting ?? 'exact');
      return [
        { name: p.name, schema: valueSchema(p), description: text },
        { name: `${p.name}[]`, schema: { type: 'array', items: valueSchema(p) }, description: `${text} Repeat it to match any of several values.`, array: true },
      ];
    }
    case 'range':
      return RANGE_OPERATORS.map((op) => ({ name: `${p.name}[${op}]`, schema: rangeBound(p, op), description: `Items whose ${p.name} is ${RANGE_TEXT[op]}. A malformed value is ignored.` }));
    case 'date':
      return DATE_OPERATORS.map((op) => ({
        name: `${p.name}[${op}]`,
        schema: dateBound(p),
        description: `Items whose ${p.name} is ${DATE_TEXT[op]}. ${NULL_TEXT[setting ?? 'exclude_null'] ?? ''}`.trim(),
      }));
    case 'order':
      return [{ name: `${s.orderParameter}[${p.name}]`, schema: direction(), description: orderText(p, setting) }];
    case 'exists':
      return [{ name: `${s.existsParameter}[${p.name}]`, schema: bool(), description: `true: items whose ${p.name} is set; false: items whose ${p.name} is null or absent.` }];
    case 'boolean':
      return [{ name: p.name, schema: bool(), description: `Items whose ${p.name} is true or false (also \`1\` and \`0\`).` }];
  }
}

interface NamedParameter {
  name: string;
  filter: FilterMetadata;
  property: PropertyMetadata;
  setting?: string;
  required: boolean;
  description?: string;
}

/** The operation's `parameters` that name a known filter and property (others are ignored at run time too). */
function namedParameters(api: ApiMetadata, op: OperationMetadata): NamedParameter[] {
  const specs = (op.options.parameters as Record<string, { filter?: unknown; property?: unknown; required?: unknown; description?: unknown }> | undefined) ?? {};
  const out: NamedParameter[] = [];
  for (const [name, spec] of Object.entries(specs)) {
    const filter = spec && api.filters.get(String(spec.filter));
    const propName = typeof spec?.property === 'string' ? spec.property : name;
    const property = op.resource.properties.find((p) => p.name === propName);
    if (!filter || !property) continue;
    out.push({
      name,
      filter,
      property,
      setting: filter.properties.find((p) => p.name === propName)?.setting,
      required: spec.required === true,
      description: typeof spec.description === 'string' ? spec.description : undefined,
    });
  }
  return out;
}

/** The value a named parameter takes: its filter's syntax, without the property name around it. */
function namedSchema(n: NamedParameter): { schema: JsonSchema; text: string; object: boolean } {
  const p = n.property;
  switch (n.filter.kind) {
    case 'search':
      return { schema: { anyOf: [valueSchema(p), { type: 'array', items: valueSchema(p) }] }, text: `${searchText(p, n.setting ?? 'exact')} Several values match any of them.`, object: false };
    case 'range':
      return {
        schema: { type: 'object', properties: Object.fromEntries(RANGE_OPERATORS.map((op) => [op, rangeBound(p, op)])) },
        text: `Bounds on ${p.name}: ${RANGE_OPERATORS.map((op) => `\`${op}\` (${RANGE_TEXT[op]})`).join(', ')}.`,
        object: true,
      };
    case 'date':
      return {
        schema: { type: 'object', properties: Object.fromEntries(DATE_OPERATORS.map((op) => [op, dateBound(p)])) },
        text: `Bounds on ${p.name}: ${DATE_OPERATORS.map((op) => `\`${op}\``).join(', ')}. ${NULL_TEXT[n.setting ?? 'exclude_null'] ?? ''}`.trim(),
        object: true,
      };
    case 'order':
      return { schema: direction(), text: orderText(p, n.setting), object: false };
    case 'exists':
      return { schema: bool(), text: `true: items whose ${p.name} is set; false: items whose ${p.name} is null or absent.`, object: false };
    case 'boolean':
      return { schema: bool(), text: `Items whose ${p.name} is true or false.`, object: false };
  }
}

const propertyOf = (op: OperationMetadata, name: string): PropertyMetadata | undefined => op.resource.properties.find((p) => p.name === name);

/** The filter parameters of a listing operation read from the URL: one per variable, first one wins. */
export function filterParameters(api: ApiMetadata, op: OperationMetadata): ParameterObject[] {
  const out = new Map<string, ParameterObject>();
  for (const name of (op.options.filters as string[] | undefined) ?? []) {
    const filter = api.filters.get(name);
    if (!filter) continue;
    for (const { name: propName, setting } of filter.properties) {
      const p = propertyOf(op, propName);
      if (!p) continue;
      for (const v of filterVariables(api, filter, p, setting)) {
        if (out.has(v.name)) continue;
        out.set(v.name, {
          name: v.name,
          in: 'query',
          description: joinText(v.description, filter.description),
          required: false,
          schema: v.schema,
          ...(v.array ? { style: 'form', explode: true } : {}),
        });
      }
    }
  }
  for (const n of namedParameters(api, op)) {
    if (out.has(n.name)) continue;
    const { schema, text, object } = namedSchema(n);
    out.set(n.name, {
      name: n.name,
      in: 'query',
      description: n.description ?? joinText(text, n.filter.description),
      required: n.required,
      schema,
      ...(object ? { style: 'deepObject', explode: true } : {}),
    });
  }
  return [...out.values()];
}

/** Whether an operation pages by cursor (then the page number means nothing). */
const byCursor = (op: OperationMetadata, api: ApiMetadata): boolean => {
  const cursor = optionValue<unknown[]>(op, api.settings, 'paginationViaCursor');
  return Array.isArray(cursor) && cursor.length > 0;
};

/** The pagination parameters an operation honours, under their configured names. */
export function paginationParameters(api: ApiMetadata, op: OperationMetadata): ParameterObject[] {
  const s = api.settings;
  const opt = <T>(name: string): T | undefined => optionValue<T>(op, s, name);
  const enabled = opt<boolean>('paginationEnabled') !== false;
  const clientEnabled = opt<boolean>('paginationClientEnabled') === true;
  const clientSize = opt<boolean>('paginationClientItemsPerPage') === true;
  const clientPartial = opt<boolean>('paginationClientPartial') === true;
  const out: ParameterObject[] = [];
  if ((enabled || clientEnabled) && !byCursor(op, api)) {
    out.push({ name: s.pageParameter, in: 'query', description: 'The collection page number.', required: false, schema: { type: 'integer', minimum: 1, default: 1 } });
  }
  if (clientSize) {
    const maximum = opt<number>('paginationMaximumItemsPerPage');
    const size = opt<number>('paginationItemsPerPage') ?? 30;
    const schema: JsonSchema = { type: 'integer', minimum: 0, default: typeof maximum === 'number' ? Math.min(size, maximum) : size };
    if (typeof maximum === 'number') schema.maximum = maximum;
    out.push({
      name: s.itemsPerPageParameter,
      in: 'query',
      description: `The number of items per page${typeof maximum === 'number' ? ` (at most ${maximum}; larger values are clamped)` : ''}.`,
      required: false,
      schema,
    });
  }
  if (clientEnabled) {
    out.push({ name: s.enabledParameter, in: 'query', description: 'Enable or disable pagination.', required: false, schema: { type: 'boolean', default: enabled } });
  }
  if (clientPartial) {
    const partial = opt<boolean>('paginationPartial') === true;
    out.push({ name: s.partialParameter, in: 'query', description: 'Enable or disable partial pagination (no count, no last page).', required: false, schema: { type: 'boolean', default: partial } });
  }
  return out;
}

/** The path variables of an operation, typed from the property of the same name, `requirements` as patterns. */
export function pathParameters(op: OperationMetadata): ParameterObject[] {
  const requirements = (op.options.requirements as Record<string, unknown> | undefined) ?? {};
  return op.uriVariables.map((name) => {
    const p = propertyOf(op, name);
    const schema: JsonSchema = p && !p.array && !p.relation && (p.type === 'int' || p.type === 'number') ? { type: p.type === 'int' ? 'integer' : 'number' } : { type: 'string' };
    if (typeof requirements[name] === 'string' && schema.type === 'string') schema.pattern = `^(?:${requirements[name]})$`;
    let description = p ? `The ${name} of the ${op.resource.shortName}` : `The ${name} path variable`;
    if (p?.identifier) description = `${op.resource.shortName} identifier`;
    return { name, in: 'path' as const, description, required: true, schema };
  });
}

/**
 * The QUERY request body: one property per criterion, in the JSON shape of the URL syntax
 * (`price: { gte: 10 }`, `order: { title: "desc" }`), named parameters included. Objects are
 * sent as `price[gte]=10` in a form body (deepObject).
 */
export function queryBodySchema(api: ApiMetadata, op: OperationMetadata): { schema: JsonSchema; deepObjects: string[] } {
  const s = api.settings;
  // Per body key: the plain values it may hold (search, boolean) and the members of its object
  // form (range and date bounds, order and exists entries): `price: 9.5` or `price: { gt: 9 }`.
  const keys = new Map<string, { values: JsonSchema[]; members: Record<string, JsonSchema>; texts: string[] }>();
  const entry = (key: string) => {
    let e = keys.get(key);
    if (!e) keys.set(key, (e = { values: [], members: {}, texts: [] }));
    return e;
  };
  const member = (key: string, sub: string, schema: JsonSchema, description: string): void => {
    entry(key).members[sub] ??= { ...schema, description };
  };
  for (const name of (op.options.filters as string[] | undefined) ?? []) {
    const filter = api.filters.get(name);
    if (!filter) continue;
    for (const { name: propName, setting } of filter.properties) {
      const p = propertyOf(op, propName);
      if (!p) continue;
      switch (filter.kind) {
        case 'search': {
          const e = entry(p.name);
          if (e.values.length) break;
          e.values.push(valueSchema(p), { type: 'array', items: valueSchema(p) });
          e.texts.push(joinText(searchText(p, setting ?? 'exact'), filter.description));
          break;
        }
        case 'boolean': {
          const e = entry(p.name);
          if (e.values.length) break;
          e.values.push(bool());
          e.texts.push(joinText(`Items whose ${p.name} is true or false.`, filter.description));
          break;
        }
        case 'range':
          for (const bound of RANGE_OPERATORS) member(p.name, bound, rangeBound(p, bound), `Items whose ${p.name} is ${RANGE_TEXT[bound]}.`);
          break;
        case 'date':
          for (const bound of DATE_OPERATORS) member(p.name, bound, dateBound(p), `Items whose ${p.name} is ${DATE_TEXT[bound]}. ${NULL_TEXT[setting ?? 'exclude_null'] ?? ''}`.trim());
          break;
        case 'order':
          member(s.orderParameter, p.name, direction(), orderText(p, setting));
          break;
        case 'exists':
          member(s.existsParameter, p.name, bool(), `true: items whose ${p.name} is set; false: items whose ${p.name} is null or absent.`);
          break;
      }
    }
  }
  const properties: Record<string, JsonSchema> = {};
  const deepObjects: string[] = [];
  for (const [key, { values, members, texts }] of keys) {
    const object: JsonSchema | undefined = Object.keys(members).length ? { type: 'object', properties: members } : undefined;
    if (object) deepObjects.push(key);
    const alternatives = [...values, ...(object ? [object] : [])];
    const schema = alternatives.length === 1 ? alternatives[0] : { anyOf: alternatives };
    properties[key] = texts.length ? { ...schema, description: texts.join(' ') } : schema;
  }
  for (const n of namedParameters(api, op)) {
    const { schema, text, object } = namedSchema(n);
    properties[n.name] = { ...schema, description: n.description ?? joinText(text, n.filter.description) };
    const at = deepObjects.indexOf(n.name);
    if (object && at < 0) deepObjects.push(n.name);
    else if (!object && at >= 0) deepObjects.splice(at, 1);
  }
  const required = namedParameters(api, op)
    .filter((n) => n.required)
    .map((n) => n.name);
  return {
    schema: {
      type: 'object',
      description: 'The criteria: each property is one filter criterion or named parameter. Unknown properties are ignored.',
      properties,
      ...(required.length ? { required } : {}),
    },
    deepObjects,
  };
}
