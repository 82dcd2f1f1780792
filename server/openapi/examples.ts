/**
 * Examples the API accepts, for the OpenAPI document (and so for Swagger UI's "Try it out"): per
 * property a value that passes its own validation (its default, an enum value, a string matching
 * its format, or its pattern and lengths, a number within its bounds and step, a date or date-time, the IRI of an item of
 * a relation's target on its real route), and per request body an object of such values.
 */
import RandExp from 'randexp';
import { itemOperation } from '../protocol/iri.js';
import type { ApiMetadata, OperationMetadata, PropertyMetadata, ResourceMetadata } from '../metadata/types.js';
import type { JsonSchema } from '../pipeline/validation/schema.js';

const DATE_TIME = '2024-01-15T10:30:00+00:00';
const DATE = '2024-01-15';

/** A string matching the pattern within the lengths; generation is deterministic (middle choices). */
function patternExample(pattern: string, min = 0, max = Infinity): string | undefined {
  let re: RegExp;
  try {
    re = new RegExp(pattern, 'u');
  } catch {
    return undefined;
  }
  for (const pick of [
    (a: number, b: number) => a + Math.floor((b - a) / 2),
    (a: number) => a,
    (_a: number, b: number) => b,
  ]) {
    const gen = new RandExp(pattern);
    gen.max = Math.max(2, Math.min(8, max));
    gen.randInt = pick;
    const s = gen.gen();
    if (re.test(s) && s.length >= min && s.length <= max) return s;
  }
  return undefined;
}

/** A value of each `format`, as its Symfony constraint accepts it. */
const FORMAT_EXAMPLES: Record<string, string> = {
  email: 'user@example.com',
  url: 'https://example.com/',
  uuid: '0190b6a4-6f3e-7c3a-9d2e-4a5b6c7d8e9f',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  hostname: 'www.example.com',
  'date-time': DATE_TIME,
};

function stringExample(p: PropertyMetadata): string | undefined {
  const min = p.minLength ?? 0;
  const max = p.maxLength ?? Infinity;
  if (p.format !== undefined) return FORMAT_EXAMPLES[p.format];
  if (p.pattern !== undefined) return patternExample(p.pattern, min, max);
  const word = p.identifier ? 'example-1' : 'string';
  if (word.length > max) return word.slice(0, max) || undefined;
  return word.padEnd(min, 'x');
}

/** Whether a number passes the property's bounds and step (and is an integer for `int`). */
function fitsNumber(p: PropertyMetadata, integer: boolean, v: number): boolean {
  const m = p.multipleOf;
  return (
    (!integer || Number.isInteger(v)) &&
    (p.minimum === undefined || v >= p.minimum) &&
    (p.maximum === undefined || v <= p.maximum) &&
    (p.exclusiveMinimum === undefined || v > p.exclusiveMinimum) &&
    (p.exclusiveMaximum === undefined || v < p.exclusiveMaximum) &&
    (m === undefined || Math.abs(v / m - Math.round(v / m)) < 1e-9)
  );
}

/** 1 when allowed, else the first allowed of the bounds, the values next to them and their middle. */
function numberExample(p: PropertyMetadata, integer: boolean): number {
  const step = p.multipleOf ?? 1;
  const bounds = [p.minimum, p.maximum, p.exclusiveMinimum, p.exclusiveMaximum].filter(
    (b): b is number => b !== undefined,
  );
  const near = bounds.flatMap((b) => [b, b + step, b - step]);
  const middle = bounds.length > 1 ? [(Math.min(...bounds) + Math.max(...bounds)) / 2] : [];
  const candidates = [1, 0, ...near, ...middle].flatMap((c) => [
    c,
    Math.ceil(c / step) * step,
    Math.floor(c / step) * step,
  ]);
  const found = candidates.find((c) => fitsNumber(p, integer, c));
  if (found !== undefined) return found;
  const lo = p.minimum ?? (p.maximum !== undefined ? Math.min(1, p.maximum) : 1);
  const v = Math.max(lo, Math.min(p.maximum ?? lo, 1));
  return integer ? Math.ceil(v) : v;
}

/** A route template with each placeholder given the value 1 (`/authors/{authorId}/books` → `/authors/1/books`). */
const filled = (template: string): string => template.replace(/\{[^{}]+\}/g, '1');

/** The IRI of an item of `target` (identifier 1, or its example), on the route that builds its IRIs. */
export function iriExample(target: ResourceMetadata): string | undefined {
  const id = target.identifier;
  const template = itemOperation(target)?.path ?? target.itemPath;
  if (!id || !template) return undefined;
  const value = id.type === 'int' ? 1 : stringExample(id);
  if (value === undefined) return undefined;
  return filled(template.replace(`{${id.name}}`, encodeURIComponent(String(value))));
}

/** The IRI an item of `resource` has in responses: its IRI, or a blank node's when it has none (no identifier). */
export const responseIriExample = (resource: ResourceMetadata): string =>
  iriExample(resource) ?? '/.well-known/genid/4f3a9c2e8b1d07a6e5c2';

/** The IRI of the collection a collection operation reads (`/books`). */
export const collectionIriExample = (op: OperationMetadata): string => filled(op.path);

/** The IRI of a page of a collection: `/books?page=2`. */
export const pageIriExample = (collection: string, pageParameter: string, page: number): string =>
  `${collection}?${pageParameter}=${page}`;

/**
 * The schema of an IRI, with its example when one is known: without one, Swagger UI makes up its own for the
 * format (`path/実例.html`).
 */
export const iri = (example?: string): JsonSchema => ({
  type: 'string',
  format: 'iri-reference',
  ...(example !== undefined && { examples: [example] }),
});

/** One value of a property (one item for `T[]`), or undefined when none can be made. */
function valueExample(p: PropertyMetadata, api: ApiMetadata): unknown {
  if (p.enum !== undefined && p.enum.length > 0) return p.enum.find((v) => v !== null) ?? p.enum[0];
  if (p.relation !== undefined) {
    const target = api.resources.find((r) => r.shortName === p.relation);
    return target ? iriExample(target) : undefined;
  }
  switch (p.type) {
    case 'int':
      return numberExample(p, true);
    case 'number':
      return numberExample(p, false);
    case 'bool':
      return true;
    case 'datetime':
      return DATE_TIME;
    case 'date':
      return DATE;
    case 'json':
      return {};
    default:
      return stringExample(p);
  }
}

/** A property's example: its default when it has one, else a value (a one-item list for `T[]`). */
export function propertyExample(p: PropertyMetadata, api: ApiMetadata): unknown {
  if (p.default !== undefined && p.default !== null) return p.default;
  const value = valueExample(p, api);
  if (value === undefined) return undefined;
  if (!p.array) return value;
  if (p.maxItems === 0) return [];
  // Repeats of the one value when more are needed (they cannot satisfy uniqueItems: the example then shows one).
  return Array.from({ length: p.uniqueItems ? 1 : Math.max(1, p.minItems ?? 1) }, () => value);
}

/**
 * The example body of a write: every property a client may send, the identifier only when the
 * client chooses it (a string one, on POST). An optional relation to the resource itself is left
 * out: the first item could not point at an existing one.
 */
export function bodyExample(resource: ResourceMetadata, api: ApiMetadata, method: string): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const p of resource.properties) {
    if (p.readOnly) continue;
    if (p.identifier && (method !== 'POST' || p.type === 'int')) continue;
    if (p.relation === resource.shortName && !p.required) continue;
    const value = propertyExample(p, api);
    if (value !== undefined) body[p.name] = value;
  }
  return body;
}
