/**
 * What the security stages share (docs/behaviour.md, "Security"): an operation's guards (`security`,
 * `securityPostDenormalize`, `securityPostValidation`, compiled once), the request facts an expression
 * reads, and the denial (401 to an anonymous request, 403 to an authenticated one). The stages
 * themselves are in stages/: pre-read-security, security, security-post-denormalize,
 * security-post-validation and property-security.
 */
import { optionValue, perOperation } from '../metadata/options.js';
import type { OperationMetadata, PropertyMetadata, ResourceMetadata, Settings } from '../metadata/types.js';
import type { Item } from '../store/types.js';
import type { Answer } from './answers.js';
import { accessDenied, allows, type RequestFacts } from '../security/access.js';
import { RelationReads } from '../security/relation-reads.js';
import { compileGuard } from '../expression/guard.js';
import type { CompiledExpression } from '../expression/evaluate.js';
import type { OperationState } from './state.js';

type Stage = 'security' | 'securityPostDenormalize' | 'securityPostValidation';

export interface Guard {
  expression: CompiledExpression;
  message?: string;
}

/** The operation's three guards (resource-level values already merged under its own at load). */
export const guardsOf = perOperation((op: OperationMetadata) => {
  const guard = (stage: Stage): Guard | undefined => {
    const source = optionValue(op, stage);
    if (typeof source !== 'string') return undefined;
    const message = optionValue(op, `${stage}Message`);
    return {
      expression: compileGuard(source, op.uriVariables),
      message: typeof message === 'string' ? message : undefined,
    };
  };
  return {
    security: guard('security'),
    securityPostDenormalize: guard('securityPostDenormalize'),
    securityPostValidation: guard('securityPostValidation'),
  };
});

/** Whether an operation has any operation-level guard (OpenAPI documents its 401 and 403). */
/** A guard's refusal: 401 to an anonymous user, 403 to another (security/access.ts, `accessDenied`). */
export const DENIALS: readonly Answer[] = [
  {
    status: 401,
    description: 'Not authenticated: the request has no credentials (and a security rule denies it) or invalid ones.',
    headers: {
      'WWW-Authenticate': {
        description: '`Bearer`, or `Bearer error="invalid_token"` for invalid credentials.',
        schema: { type: 'string' },
      },
    },
  },
  { status: 403, description: 'Access denied: a security rule of this operation denies the authenticated user.' },
];

export const isGuarded = (op: OperationMetadata, settings: Settings): boolean => {
  const g = guardsOf(op, settings);
  return g.security !== undefined || g.securityPostDenormalize !== undefined || g.securityPostValidation !== undefined;
};

/** Whether the `security` expression reads the item, so that it runs after the read. */
export const securityReadsObject = (op: OperationMetadata, settings: Settings): boolean =>
  guardsOf(op, settings).security?.expression.usesObject === true;

/**
 * Each request's reads of related items, kept for all its stages (one read of a shop per request), on the state
 * itself: an entry per request in a WeakMap keyed by the state, whose value refers back to it, cost a scoped page
 * about a third of its CPU in process (docs/performance.md, "Row-level scopes").
 */
function relationReadsOf(state: OperationState): RelationReads {
  return (state.relationReads ??= new RelationReads(state.api, (r) => state.runtime.collectionOf(r)));
}

export function factsOf(state: OperationState): RequestFacts {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(state.request.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return {
    security: state.api.security,
    principal: state.principal,
    request: { method: state.request.method, path: state.path, query: state.request.query, headers },
    uriVariables: state.uriVariables,
    logger: state.runtime.logger,
    operation: `${state.operation.resource.shortName}.${state.operation.name}`,
    resource: state.operation.resource,
    relations: relationReadsOf(state),
  };
}

export async function enforce(
  state: OperationState,
  guard: Guard,
  object: unknown,
  previousObject: unknown,
): Promise<void> {
  if (!(await allows(guard.expression, factsOf(state), object, previousObject)))
    throw accessDenied(state.principal, guard.message);
}

/**
 * Reads at once, for a page of `resource`'s items, the related items its properties' `security` rules read
 * through (`object.shop.owner`): one query per relation, not one per item.
 */
export async function readRelationsOfPropertyRules(
  facts: RequestFacts,
  resource: ResourceMetadata,
  items: readonly unknown[],
): Promise<void> {
  const paths = resource.properties.flatMap((p) => p.security?.memberPaths.object ?? []);
  // A failed read leaves those relations as IRIs: the rules that read through them deny.
  if (paths.length && facts.relations) await facts.relations.prefetch(resource, items, paths).catch(() => undefined);
}

/** The properties of an item the reader may not see (property `security` denies; an error denies too). */
export type HiddenProperties = (resource: ResourceMetadata, item: Item) => Promise<ReadonlySet<string>>;

/**
 * Property `security` evaluated for one request's reader, with `object` the item: a rule that does not read
 * `object` is evaluated once per request and resource property.
 */
export function hiddenPropertiesFor(facts: RequestFacts): HiddenProperties {
  const fixed = new Map<PropertyMetadata, Promise<boolean>>();
  return async (resource, item) => {
    const names = new Set<string>();
    for (const p of resource.properties) {
      if (!p.security) continue;
      let allowed: Promise<boolean> | undefined = fixed.get(p);
      if (!allowed) {
        allowed = allows(p.security, facts, item, null, resource);
        if (!p.security.usesObject) fixed.set(p, allowed);
      }
      if (!(await allowed)) names.add(p.name);
    }
    return names;
  };
}
