/**
 * A filter criterion's value read as the filtered property's type (what every filter kind compares
 * with): PHP's numeric strings, booleans as `true`/`false`/`1`/`0`, dates in UTC, a relation or the
 * identifier by IRI. Malformed values are undefined: the kinds ignore them, as API Platform does.
 */
import { fillTemplate, iriPath, itemOperation } from '../../protocol/iri.js';
import type { ApiMetadata, PropertyMetadata, ResourceMetadata } from '../../metadata/types.js';
import { normalizeDateTime } from '../representation/denormalize.js';

/** What a criterion's value is read against: the API (relations' IRIs) and the filtered resource. */
export interface Ctx {
  api: ApiMetadata;
  resource: ResourceMetadata;
}

/** What PHP's is_numeric() accepts (no hexadecimal, no `Infinity`), as API Platform checks. */
const NUMERIC = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

export const asObject = (v: unknown): Record<string, unknown> | undefined =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
export const scalar = (v: unknown): string | undefined =>
  typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined;

export function boolOf(v: unknown): boolean | undefined {
  const s = scalar(v)?.toLowerCase();
  if (s === 'true' || s === '1') return true;
  return s === 'false' || s === '0' ? false : undefined;
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
