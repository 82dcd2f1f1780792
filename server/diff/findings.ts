/**
 * What `apidsl diff` reports (docs/diff.md): each kind of change with its severity and the clients it breaks. One
 * row per kind, so that a kind always reads the same whatever found it, and docs/diff.md lists the same table.
 */

export const SEVERITIES = ['info', 'warning', 'breaking'] as const;
export type Severity = (typeof SEVERITIES)[number];

/**
 * Who a change breaks: plain `json` clients (REST, GraphQL, MCP), `hypermedia` clients (that follow `@type`, `@id`,
 * the context and links), the typed `client` (`apidsl client`), the `storage` (the stored items need a migration),
 * and `security` (who may do what is widened or narrowed).
 */
export const AUDIENCES = ['json', 'hypermedia', 'client', 'storage', 'security'] as const;
export type Audience = (typeof AUDIENCES)[number];

interface KindSpec {
  severity: Severity;
  audiences: readonly Audience[];
}

const API: readonly Audience[] = ['json', 'hypermedia', 'client'];
const INPUT: readonly Audience[] = ['json', 'client'];
const STORED_INPUT: readonly Audience[] = ['json', 'client', 'storage'];
const breaking = (...audiences: Audience[]): KindSpec => ({ severity: 'breaking', audiences });
const warning = (...audiences: Audience[]): KindSpec => ({ severity: 'warning', audiences });
const info = (...audiences: Audience[]): KindSpec => ({ severity: 'info', audiences });

export const FINDING_KINDS = {
  'resource-removed': breaking(...API, 'storage'),
  'resource-added': info(),
  'resource-renamed': breaking(...API, 'storage'),
  'short-name-changed': breaking(...API, 'storage'),
  'route-prefix-changed': breaking(...API),
  'identifier-changed': breaking(...API, 'storage'),
  'property-removed': breaking(...API, 'storage'),
  'property-added': info(),
  'required-property-added': breaking(...STORED_INPUT),
  // The server fills the default, but the typed client's input type (as the OpenAPI schema) now demands it.
  'required-property-added-with-default': breaking('client'),
  'property-renamed': breaking(...API, 'storage'),
  'property-type-changed': breaking(...STORED_INPUT),
  'property-made-required': breaking(...STORED_INPUT),
  'property-made-optional': breaking('client'),
  'property-made-non-nullable': breaking(...STORED_INPUT),
  'property-made-nullable': breaking('client'),
  'enum-values-removed': breaking(...STORED_INPUT),
  'enum-values-added': breaking('client'),
  'format-narrowed': breaking(...STORED_INPUT),
  'bound-narrowed': breaking(...STORED_INPUT),
  'bound-relaxed': info(),
  // A relaxed bound, format or enum of a property that responses show: a client that checks them may meet values it refuses.
  'response-widened': breaking('client'),
  'default-changed': warning(...INPUT),
  'unique-added': breaking('json', 'storage'),
  'unique-removed': info(),
  // A relation's onDelete became restrict: deleting a target that is referred to now answers 409.
  'on-delete-restricted': breaking('json', 'storage'),
  // Deleting a target now deletes (cascade) or detaches (setNull) its referrers, or does the other.
  'on-delete-changed': warning('json', 'storage'),
  'property-no-longer-readable': breaking(...API),
  'property-now-readable': info(),
  'property-no-longer-writable': breaking(...INPUT),
  'property-now-writable': info(),
  'operation-removed': breaking(...API),
  'operation-added': info(),
  'route-changed': breaking(...API),
  'operation-type-changed': breaking('hypermedia', 'client'),
  'filter-removed': breaking(...INPUT),
  'filter-added': info(),
  'filter-strategy-changed': breaking(...INPUT),
  'pagination-default-lowered': warning(...INPUT),
  'pagination-default-raised': info(),
  'pagination-maximum-lowered': breaking(...INPUT),
  'pagination-maximum-raised': info(),
  'pagination-changed': breaking(...API),
  'client-switch-removed': breaking(...INPUT),
  'client-switch-added': info(),
  'security-added': breaking('security', 'json'),
  // The old expression and more conditions (`A` → `A and B`): callers or items it now refuses.
  'security-narrowed': breaking('security', 'json'),
  // The old expression or more (`A` → `A or B`): more callers or items, for a security review.
  'security-widened': warning('security'),
  'security-changed': warning('security'),
  'security-removed': warning('security'),
  'rate-limit-lowered': warning(...INPUT),
  'rate-limit-raised': info(),
  'graphql-operation-removed': breaking(...INPUT),
  'graphql-operation-added': info(),
  'mcp-tool-removed': breaking('json'),
  'mcp-tool-added': info(),
  deprecated: info(...API),
  'deprecation-changed': info(),
  undeprecated: info(),
} as const satisfies Record<string, KindSpec>;

export type FindingKind = keyof typeof FINDING_KINDS;

export interface Finding {
  kind: FindingKind;
  severity: Severity;
  audiences: Audience[];
  /** What changed: `Book`, `Book.title`, `Book GetCollection`. */
  subject: string;
  /** The change in words: `maxLength 255 → 100`. */
  detail: string;
  /** The routes it affects (`GET /books/{id}`), of the old file; of the new one for what is added. */
  routes: string[];
}

/** A finding of `kind`, with the kind's severity and audiences. */
export function finding(kind: FindingKind, subject: string, detail: string, routes: readonly string[] = []): Finding {
  const spec: KindSpec = FINDING_KINDS[kind];
  return { kind, severity: spec.severity, audiences: [...spec.audiences], subject, detail, routes: [...routes] };
}

/** At or above: `breaking` is at or above `warning`. */
export const atLeast = (severity: Severity, threshold: Severity): boolean =>
  SEVERITIES.indexOf(severity) >= SEVERITIES.indexOf(threshold);
