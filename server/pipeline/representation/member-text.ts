/**
 * A collection member's JSON text written straight from its item: the exact text `JSON.stringify(normalizeItem(…))`
 * gives (normalize.ts), without the object in between or the generic walk over it. The keys' texts (`,"title":`)
 * are encoded once per operation and format; a value is written by its type (a string or a number directly, any
 * other value by JSON.stringify, as the whole document's would write it). A page of 30 members spends most of its
 * serialization there (docs/performance.md, "A page's own work").
 */
import { perOperation } from '../../metadata/options.js';
import { shownProperties } from '../../metadata/property-access.js';
import type { PropertyMetadata, Settings } from '../../metadata/types.js';
import type { Item } from '../../store/types.js';
import type { RelationOutput } from './normalize.js';

/** One member's text; `hidden`, `relation` and the IRI as normalizeItem takes them. */
export type MemberText = (item: Item, iri: string, hidden?: ReadonlySet<string>, relation?: RelationOutput) => string;

interface Field {
  property: PropertyMetadata;
  /** `"name":`, the key as JSON.stringify writes it. */
  key: string;
}

/** What JSON.stringify escapes in a string: `"`, `\\`, control characters, and surrogates (a lone one is escaped). */
// eslint-disable-next-line no-control-regex -- the control characters are what JSON escapes
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/** A string's JSON text: most need no escape, quoted as they are, which costs less than JSON.stringify's call. */
const stringText = (value: string): string => (ESCAPED.test(value) ? JSON.stringify(value) : `"${value}"`);

/** A value's JSON text (undefined where an object member would be left out: a function, a symbol). */
function valueText(value: unknown): string | undefined {
  if (typeof value === 'string') return stringText(value);
  // JSON writes a finite number as String() does, any other as null.
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return JSON.stringify(value);
}

/**
 * Names an object would not keep in the order they are set: array indices (a JS object lists them first), the
 * JSON-LD keys written before the properties, `__proto__` (an assignment that sets no member).
 */
const reorders = (name: string, jsonld: boolean): boolean =>
  /^(0|[1-9]\d{0,9})$/.test(name) || name === '__proto__' || (jsonld && (name === '@id' || name === '@type'));

/**
 * The writer of the members normalizeItem makes with `shown` and `type` (exported for its test); undefined where
 * their object would order its keys otherwise.
 */
export function memberText(shown: readonly PropertyMetadata[], jsonld: boolean, type: string): MemberText | undefined {
  const names = shown.map((p) => p.name);
  if (names.some((n) => reorders(n, jsonld)) || new Set(names).size !== names.length) return undefined;
  const fields: Field[] = shown.map((property) => ({ property, key: `${JSON.stringify(property.name)}:` }));
  const typeText = `,"@type":${JSON.stringify(type)}`;
  return (item, iri, hidden, relation) => {
    let text = jsonld ? `{"@id":${stringText(iri)}${typeText}` : '{';
    let first = !jsonld;
    for (const { property, key } of fields) {
      const stored = item[property.name];
      if (stored === undefined || stored === null || hidden?.has(property.name)) continue;
      // A relation's output may leave it out (undefined: embedding's maxDepth reached).
      const value = relation && property.relation ? relation(property, stored) : stored;
      const written = value === undefined ? undefined : valueText(value);
      if (written === undefined) continue;
      text += first ? key + written : `,${key}${written}`;
      first = false;
    }
    return `${text}}`;
  };
}

/**
 * The member writers of an operation's items, JSON-LD and plain JSON, made once per operation; undefined where
 * the object normalizeItem builds would order its keys otherwise (then the caller normalizes and stringifies).
 * Only for a resource with declared properties: an undeclared one's items show whatever they hold.
 */
export const memberTexts = perOperation(
  (op, settings: Settings): { jsonld?: MemberText; json?: MemberText } | undefined => {
    if (op.resource.properties.length === 0) return undefined;
    const shown = shownProperties(op, settings);
    return { jsonld: memberText(shown, true, op.shortName), json: memberText(shown, false, op.shortName) };
  },
);
