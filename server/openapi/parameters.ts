/**
 * What a client may send to an operation besides its body: path variables, the pagination
 * parameters the operation honours (under the names the settings give them), and the criteria
 * of its filters and named `parameters` — as URL parameters (GET) or as the properties of a
 * QUERY request body. One entry per variable the runtime reads (each filter kind's module in
 * server/pipeline/filters/ describes its own; server/pipeline/pages/pagination.ts), so the document says
 * exactly what is understood.
 */
import { optionValue } from '../metadata/options.js';
import type { OptionName } from '../../grammar/catalogue/index.js';
import type { ApiMetadata, FilterMetadata, OperationMetadata, PropertyMetadata } from '../metadata/types.js';
import { filterKind } from '../pipeline/filters/index.js';
import type { NamedValue } from '../pipeline/filters/kind.js';
import { filterTarget } from '../pipeline/filters/paths.js';
import type { JsonSchema } from '../pipeline/validation/schema.js';
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
  const specs = optionValue(op, 'parameters') ?? {};
  const out: NamedParameter[] = [];
  for (const [name, spec] of Object.entries(specs)) {
    const filter = spec && api.filters.get(String(spec.filter));
    const propName = typeof spec?.property === 'string' ? spec.property : name;
    const property = filterTarget(api, op.resource, propName)?.prop;
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
const namedSchema = (n: NamedParameter): NamedValue => filterKind(n.filter.kind).namedValue(n.property, n.setting);

const propertyOf = (op: OperationMetadata, name: string): PropertyMetadata | undefined =>
  op.resource.properties.find((p) => p.name === name);

/** The filter parameters of a listing operation read from the URL: one per variable, first one wins. */
export function filterParameters(api: ApiMetadata, op: OperationMetadata): ParameterObject[] {
  const out = new Map<string, ParameterObject>();
  for (const name of optionValue(op, 'filters') ?? []) {
    const filter = api.filters.get(name);
    if (!filter) continue;
    for (const { name: propName, setting } of filter.properties) {
      const p = filterTarget(api, op.resource, propName)?.prop;
      if (!p) continue;
      for (const v of filterKind(filter.kind).documentedVariables(api.settings, p, setting)) {
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
  const cursor = optionValue(op, api.settings, 'paginationViaCursor');
  return Array.isArray(cursor) && cursor.length > 0;
};

/** The pagination parameters an operation honours, under their configured names. */
export function paginationParameters(api: ApiMetadata, op: OperationMetadata): ParameterObject[] {
  const s = api.settings;
  const opt = <N extends OptionName>(name: N) => optionValue(op, s, name);
  const enabled = opt('paginationEnabled') !== false;
  const clientEnabled = opt('paginationClientEnabled') === true;
  const clientSize = opt('paginationClientItemsPerPage') === true;
  const clientPartial = opt('paginationClientPartial') === true;
  const out: ParameterObject[] = [];
  if ((enabled || clientEnabled) && !byCursor(op, api)) {
    out.push({
      name: s.pageParameter,
      in: 'query',
      description: 'The collection page number.',
      required: false,
      schema: { type: 'integer', minimum: 1, default: 1 },
    });
  }
  if (clientSize) {
    const maximum = opt('paginationMaximumItemsPerPage');
    const size = opt('paginationItemsPerPage');
    const schema: JsonSchema = {
      type: 'integer',
      minimum: 0,
      default: typeof maximum === 'number' ? Math.min(size, maximum) : size,
    };
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
    out.push({
      name: s.enabledParameter,
      in: 'query',
      description: 'Enable or disable pagination.',
      required: false,
      schema: { type: 'boolean', default: enabled },
    });
  }
  if (clientPartial) {
    const partial = opt('paginationPartial') === true;
    out.push({
      name: s.partialParameter,
      in: 'query',
      description: 'Enable or disable partial pagination (no count, no last page).',
      required: false,
      schema: { type: 'boolean', default: partial },
    });
  }
  return out;
}

/** The path variables of an operation, typed from the property of the same name, `requirements` as patterns. */
export function pathParameters(op: OperationMetadata): ParameterObject[] {
  const requirements = optionValue(op, 'requirements') ?? {};
  return op.uriVariables.map((name) => {
    const p = propertyOf(op, name);
    const schema: JsonSchema =
      p && !p.array && !p.relation && (p.type === 'int' || p.type === 'number')
        ? { type: p.type === 'int' ? 'integer' : 'number' }
        : { type: 'string' };
    if (typeof requirements[name] === 'string' && schema.type === 'string')
      schema.pattern = `^(?:${requirements[name]})$`;
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
export function queryBodySchema(
  api: ApiMetadata,
  op: OperationMetadata,
): { schema: JsonSchema; deepObjects: string[] } {
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
  for (const name of optionValue(op, 'filters') ?? []) {
    const filter = api.filters.get(name);
    if (!filter) continue;
    for (const { name: propName, setting } of filter.properties) {
      const p = filterTarget(api, op.resource, propName)?.prop;
      if (!p) continue;
      const body = filterKind(filter.kind).bodyEntry(s, p, setting);
      if ('members' in body) {
        for (const m of body.members) member(body.key, m.name, m.schema, m.description);
        continue;
      }
      const e = entry(body.key);
      if (e.values.length) continue;
      e.values.push(...body.values);
      e.texts.push(joinText(body.text, filter.description));
    }
  }
  const properties: Record<string, JsonSchema> = {};
  const deepObjects: string[] = [];
  for (const [key, { values, members, texts }] of keys) {
    const object: JsonSchema | undefined = Object.keys(members).length
      ? { type: 'object', properties: members }
      : undefined;
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
      description:
        'The criteria: each property is one filter criterion or named parameter. Unknown properties are ignored.',
      properties,
      ...(required.length ? { required } : {}),
    },
    deepObjects,
  };
}
