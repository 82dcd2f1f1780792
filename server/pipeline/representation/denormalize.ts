/**
 * Request body → item, as API Platform denormalizes a JSON object: per property type, for POST ('create'),
 * PUT ('replace': apidsl's PUT keeps absent properties) and PATCH ('merge-patch', RFC 7396).
 * A wrong type answers 400, or a 422 violation on a property with constraints (API Platform 4.4+).
 * Constraints themselves (NotBlank, Length, …) are validation/constraints.ts's job.
 */
import { badRequest } from '../../protocol/errors.js';
import type { Violation } from '../../protocol/errors.js';
import type { PropertyMetadata, ResourceMetadata } from '../../metadata/types.js';
import type { Item } from '../../store/types.js';
import { identifierFault } from '../../protocol/identifier.js';
import { validationFailed, violation } from '../validation/violations.js';

export type DenormalizeMode = 'create' | 'replace' | 'merge-patch';

export interface IriResolver {
  /** The short name of the resource whose item route matches the IRI path, if any. */
  resourceOf(iri: string): string | undefined;
  /** The absolute path, the form relations are stored in, of an IRI as sent. */
  path(iri: string): string;
}

/** Why a value does not fit its property: the 400 detail, or the 422 violation when the property is constrained. */
class Mismatch {
  constructor(
    readonly detail: string,
    readonly violation: Violation,
  ) {}
}

export interface DenormalizeOptions {
  /** The properties the operation accepts (property-access.ts); default every non-read-only one. */
  accepted?: readonly PropertyMetadata[];
  /**
   * collectDenormalizationErrors: every type error of the body is added here (relation IRIs included)
   * instead of answering 400 on the first; the caller adds the relations that name no item and throws the 422.
   */
  collected?: Violation[];
  /**
   * A relation given a JSON object (a nested document): what the relation holds in its place, or undefined
   * when the operation's groups make it no writable link (relations/nested-writes.ts). Absent: IRIs only.
   */
  nested?: NestedDocument;
  /**
   * `allow_extra_attributes` (default true): false refuses, with 400, a body holding attributes the
   * denormalization does not take instead of ignoring them; `dropped` adds names the body's format left out
   * before (JSON:API member names that cannot be attributes).
   */
  extraAttributes?: { allowed: boolean; dropped?: readonly string[] };
}

/** Takes a nested document at `path` (`speaker`, `reviewers[1]`); returns what the relation holds meanwhile. */
export type NestedDocument = (
  property: PropertyMetadata,
  document: Record<string, unknown>,
  path: string,
) => string | undefined;

/**
 * The item a body makes, from `previous` (null when the item is new: then declared defaults fill absent
 * properties). Nulls remove properties; the result holds none at the top level. Properties the operation
 * does not accept are ignored, as API Platform ignores attributes outside the denormalization groups.
 */
export function denormalize(
  resource: ResourceMetadata,
  body: unknown,
  mode: DenormalizeMode,
  previous: Item | null,
  iri: IriResolver,
  options: DenormalizeOptions = {},
): Item {
  if (!isObject(body)) throw badRequest('The input data is misformatted.');
  if (mode === 'create' && Object.hasOwn(body, '@id')) throw badRequest('Update is not allowed for this operation.');
  // Shallow: only top-level keys change; merge-patch builds new objects rather than changing stored ones.
  const item: Item = { ...previous };
  const violations: Violation[] = options.collected ?? [];
  const accepted = options.accepted ? new Set(options.accepted) : undefined;
  if (options.extraAttributes?.allowed === false)
    refuseExtraAttributes(resource, body, accepted, options.extraAttributes.dropped ?? []);
  for (const property of bodyProperties(resource, body)) {
    if (!Object.hasOwn(body, property.name) || !writable(property, mode)) continue;
    if (accepted && resource.properties.length > 0 && !accepted.has(property)) continue;
    const value = body[property.name];
    if (value === null) {
      if (!property.nullable) violations.push(violation(property.name, 'NotNull'));
      delete item[property.name];
      continue;
    }
    let result: unknown;
    if (property.identifier) result = identifier(resource, property, value);
    else if (mode === 'merge-patch' && property.type === 'json' && !property.array)
      result = mergePatch(item[property.name], value);
    else result = convert(property, value, iri, options.nested);
    if (result instanceof Mismatch) {
      // An identifier the client chose is refused by a 422 on its property, whatever its constraints.
      if (!options.collected && !property.identifier && (!property.constrained || property.relation))
        throw badRequest(result.detail);
      violations.push(result.violation);
    } else {
      define(item, property.name, result);
    }
  }
  if (violations.length > 0 && !options.collected) throw validationFailed(violations);
  if (previous === null) fillDefaults(resource, item, iri);
  return item;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Assignment that also works for a `__proto__` key (JSON.parse makes it an own property). */
function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** JSON-LD keywords a body may carry besides its attributes: never extra. */
const JSONLD_KEYWORDS = new Set(['@id', '@type', '@context']);

/**
 * Symfony's ExtraAttributesException, as API Platform answers it: the body's attributes that the resource does
 * not declare, that are read-only, or that the operation does not accept (outside its denormalization groups).
 * A resource without properties takes any attribute.
 */
function refuseExtraAttributes(
  resource: ResourceMetadata,
  body: Record<string, unknown>,
  accepted: ReadonlySet<PropertyMetadata> | undefined,
  dropped: readonly string[],
): void {
  if (resource.properties.length === 0) return;
  const extra = Object.keys(body).filter((key) => {
    if (JSONLD_KEYWORDS.has(key)) return false;
    const property = resource.properties.find((p) => p.name === key);
    return property === undefined || property.readOnly || (accepted !== undefined && !accepted.has(property));
  });
  extra.push(...dropped);
  if (extra.length === 0) return;
  const names = extra.map((name) => JSON.stringify(name)).join(', ');
  throw badRequest(`Extra attributes are not allowed (${names} ${extra.length > 1 ? 'are' : 'is'} unknown).`);
}

/** A resource without properties takes any JSON object: every key then acts as a `json` property. */
function bodyProperties(resource: ResourceMetadata, body: Record<string, unknown>): PropertyMetadata[] {
  if (resource.properties.length > 0) return resource.properties;
  return Object.keys(body)
    .filter((key) => !key.startsWith('@'))
    .map((name) => ({
      name,
      type: 'json',
      array: false,
      identifier: false,
      required: false,
      nullable: true,
      readOnly: false,
      writeOnly: false,
      constrained: false,
    }));
}

/**
 * readOnly properties are ignored (a store-assigned int identifier is one: metadata/load.ts); an identifier the
 * client may choose is taken on create only (the store then uses it), PUT with allowCreate takes the URI's.
 */
function writable(property: PropertyMetadata, mode: DenormalizeMode): boolean {
  return !property.readOnly && (mode === 'create' || !property.identifier);
}

function fillDefaults(resource: ResourceMetadata, item: Item, iri: IriResolver): void {
  for (const property of resource.properties) {
    if (property.default === undefined || property.default === null || Object.hasOwn(item, property.name)) continue;
    // Defaults go through the body's conversion, so a datetime default is stored in the normalised form.
    const value = convert(property, structuredClone(property.default), iri);
    if (value instanceof Mismatch) {
      throw new Error(`Invalid default of ${resource.shortName}.${property.name}: ${value.detail}`);
    }
    item[property.name] = value;
  }
}

/** RFC 7396 MergePatch(target, patch): objects merge recursively, a null removes the key, anything else replaces. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const result: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else define(result, key, mergePatch(Object.hasOwn(result, key) ? result[key] : undefined, value));
  }
  return result;
}

function convert(property: PropertyMetadata, value: unknown, iri: IriResolver, nested?: NestedDocument): unknown {
  if (!property.array) return convertOne(property, value, property.name, iri, nested);
  if (!Array.isArray(value)) return typeMismatch(property, property.name, 'array', value);
  const items: unknown[] = [];
  for (const [index, entry] of value.entries()) {
    const converted = convertOne(property, entry, `${property.name}[${index}]`, iri, nested);
    if (converted instanceof Mismatch) return converted;
    items.push(converted);
  }
  return items;
}

/** `value` in the property's stored form, converted as a body's would be; undefined when it does not fit. */
export function conformingValue(property: PropertyMetadata, value: unknown, iri: IriResolver): unknown {
  const result = convert(property, value, iri);
  return result instanceof Mismatch ? undefined : result;
}

/** One value (one item of a `T[]`) in its stored form, or a Mismatch; `path` is its property path. */
function convertOne(
  property: PropertyMetadata,
  value: unknown,
  path: string,
  iri: IriResolver,
  nested?: NestedDocument,
): unknown {
  if (property.relation !== undefined) return relation(property, value, path, iri, nested);
  switch (property.type) {
    case 'int':
      return Number.isSafeInteger(value) ? value : typeMismatch(property, path, 'int', value);
    case 'number':
      return typeof value === 'number' ? value : typeMismatch(property, path, 'float', value);
    case 'string':
      return typeof value === 'string' ? value : typeMismatch(property, path, 'string', value);
    case 'bool':
      return typeof value === 'boolean' ? value : typeMismatch(property, path, 'bool', value);
    case 'datetime':
      if (typeof value !== 'string') return typeMismatch(property, path, 'string', value);
      return normalizeDateTime(value) ?? formatMismatch(property, path, 'DateTime', value);
    case 'date':
      if (typeof value !== 'string') return typeMismatch(property, path, 'string', value);
      return DATE.test(value) && validDate(value) ? value : formatMismatch(property, path, 'Date', value);
    default: // json
      return value;
  }
}

/** An identifier the client chose: valid by the rule the routes use (protocol/identifier.ts), else a 422 violation. */
function identifier(resource: ResourceMetadata, property: PropertyMetadata, value: unknown): unknown {
  const fault = identifierFault(resource, value);
  if (fault === undefined) return value;
  return new Mismatch(fault, identifierViolation(property.name, fault));
}

/** An identifier refused: the rule it breaks as the message (as a constraint's custom message), Regex's code. */
export function identifierViolation(path: string, fault: string): Violation {
  return { ...violation(path, 'Regex'), message: fault };
}

/**
 * A relation holds an IRI of its target resource, or, where the operation's groups make it a writable link, a
 * nested document stands for one; these errors are 400 even on constrained properties.
 */
function relation(
  property: PropertyMetadata,
  value: unknown,
  path: string,
  iri: IriResolver,
  nested?: NestedDocument,
): string | Mismatch {
  const mismatch = (detail: string) => new Mismatch(detail, relationViolation(path, property.relation!, detail));
  if (isObject(value))
    return (
      nested?.(property, value, path) ??
      mismatch(`Nested documents for attribute "${property.name}" are not allowed. Use IRIs instead.`)
    );
  if (typeof value !== 'string')
    return mismatch(`Expected IRI or nested document for attribute "${property.name}", "${phpType(value)}" given.`);
  if (iri.resourceOf(value) !== property.relation) return mismatch(`Invalid IRI "${value}".`);
  return iri.path(value);
}

/** A relation's value refused, as API Platform collects it: a Type violation naming the target, the reason as its hint. */
export function relationViolation(path: string, target: string, hint: string): Violation {
  return { ...violation(path, 'Type', { type: target }), hint };
}

/** The value's type in PHP's gettype() words, as API Platform's messages name it (JSON objects are PHP arrays). */
function phpType(value: unknown): string {
  if (value === null) return 'NULL';
  if (typeof value === 'object') return 'array';
  if (typeof value === 'number') return Number.isSafeInteger(value) ? 'integer' : 'double';
  return typeof value === 'boolean' ? 'boolean' : 'string';
}

/** `expected` is PHP's type name: int, float, string, bool, array. */
function typeMismatch(property: PropertyMetadata, path: string, expected: string, value: unknown): Mismatch {
  return new Mismatch(
    `The type of the "${property.name}" attribute must be "${expected}", "${phpType(value)}" given.`,
    violation(path, 'Type', { type: expected }),
  );
}

function formatMismatch(
  property: PropertyMetadata,
  path: string,
  constraint: 'DateTime' | 'Date',
  value: string,
): Mismatch {
  const form = constraint === 'DateTime' ? 'an ISO 8601 date-time' : 'a YYYY-MM-DD date';
  const detail = `The "${property.name}" attribute must be ${form}, "${value}" given.`;
  return new Mismatch(detail, violation(path, constraint));
}

/**
 * An item custom code hands to `ctx.persist`, in the form the default write stores: datetimes normalised
 * as a request body's are (values that are not date-times are left for the store as given).
 */
export function storedForm(resource: ResourceMetadata, item: Item): Item {
  const out: Item = { ...item };
  for (const p of resource.properties) {
    if (p.type !== 'datetime' || p.relation) continue;
    const one = (v: unknown): unknown => (typeof v === 'string' ? (normalizeDateTime(v) ?? v) : v);
    const value = out[p.name];
    if (value !== undefined && value !== null)
      define(out, p.name, p.array && Array.isArray(value) ? value.map(one) : one(value));
  }
  return out;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
// Date, then optionally a time (`T` or a space), seconds, a fraction and a zone (Z or ±hh:mm / ±hhmm).
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|([+-])(\d{2}):?(\d{2}))?)?$/i;

/** `YYYY-MM-DD` names a day of the calendar (no February 30th). */
function validDate(text: string): boolean {
  return validDay(Number(text.slice(0, 4)), Number(text.slice(5, 7)), Number(text.slice(8, 10)));
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function validDay(year: number, month: number, day: number): boolean {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 && leap ? 29 : MONTH_DAYS[month - 1];
  return days !== undefined && day >= 1 && day <= days;
}

/** A group of a match as a number, 0 when absent (each body's datetimes pass here: no array per call). */
const part = (match: RegExpExecArray, i: number): number => (match[i] === undefined ? 0 : Number(match[i]));

/**
 * The one form datetimes are stored and output in: UTC, API Platform's `Y-m-d\TH:i:sP`
 * (`2024-01-03T12:00:00+00:00`), with `.sss` milliseconds only when they are not zero. String order stays time
 * order (`+` sorts before `.`). No zone means UTC; a date alone means midnight. Undefined when not a date-time.
 */
export function normalizeDateTime(text: string): string | undefined {
  const match = DATE_TIME.exec(text);
  if (match === null || !validDay(Number(match[1]), Number(match[2]), Number(match[3]))) return undefined;
  const hour = part(match, 4);
  const minute = part(match, 5);
  const second = part(match, 6);
  const offsetHours = part(match, 10);
  const offsetMinutes = part(match, 11);
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return undefined;
  const millis = Number((match[7] ?? '').padEnd(3, '0').slice(0, 3));
  const offset = (match[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes);
  // setUTCFullYear, unlike Date.UTC, does not read years 0-99 as 1900-1999.
  const date = new Date(0);
  date.setUTCFullYear(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  date.setUTCHours(hour, minute - offset, second, millis);
  const year = date.getUTCFullYear();
  if (year < 0 || year > 9999) return undefined;
  return `${date.toISOString().slice(0, millis === 0 ? 19 : 23)}+00:00`;
}
