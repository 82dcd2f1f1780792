/**
 * Access decisions: the request's principal (user and roles after the hierarchy), `is_granted`
 * (roles, Symfony's authentication attributes, then the voters with the affirmative strategy)
 * and the evaluation of one compiled expression. Every failure denies and is logged: an error
 * can never grant.
 */
import type { Logger } from 'pino';
import { HttpError } from '../protocol/errors.js';
import type { ResourceMetadata, SecurityMetadata } from '../metadata/types.js';
import {
  ExpressionDataError,
  type CompiledExpression,
  type SecurityContext,
  type SecurityUser,
} from '../expression/evaluate.js';
import type { RelationReads } from './relation-reads.js';

/** Who is asking: null user = anonymous (no roles). */
export interface Principal {
  user: SecurityUser | null;
  /** The user's roles after the role hierarchy. */
  roles: readonly string[];
}

export const ANONYMOUS: Principal = Object.freeze({ user: null, roles: Object.freeze([]) as readonly string[] });

export function principalOf(security: SecurityMetadata, user: SecurityUser | null): Principal {
  if (!user) return ANONYMOUS;
  const roles = new Set<string>();
  for (const role of user.roles) for (const granted of security.roleHierarchy.get(role) ?? [role]) roles.add(granted);
  return { user, roles: [...roles] };
}

/** Symfony's AuthenticatedVoter attributes: true for any authenticated user (PUBLIC_ACCESS for everyone). */
const AUTHENTICATED_ATTRIBUTES = new Set(['IS_AUTHENTICATED', 'IS_AUTHENTICATED_FULLY', 'IS_AUTHENTICATED_REMEMBERED']);

/**
 * `is_granted(attribute, subject)`: a `ROLE_…` attribute is granted when the user holds the role;
 * any other attribute asks the voters in order, granted as soon as one answers true. A voter
 * that throws makes the whole evaluation fail (and so deny). Answered synchronously when no voter
 * is asked (no promise, no voter watchdog on a role check).
 */
export function isGranted(
  security: SecurityMetadata,
  principal: Principal,
  attribute: unknown,
  subject: unknown,
): boolean | Promise<boolean> {
  if (typeof attribute !== 'string') return false;
  if (attribute.startsWith('ROLE_')) return principal.roles.includes(attribute);
  if (attribute === 'PUBLIC_ACCESS') return true;
  if (AUTHENTICATED_ATTRIBUTES.has(attribute)) return principal.user !== null;
  return askVoters(security, principal, attribute, subject);
}

async function askVoters(
  security: SecurityMetadata,
  principal: Principal,
  attribute: string,
  subject: unknown,
): Promise<boolean> {
  for (const voter of security.voters) {
    if ((await voter(attribute, subject, principal.user)) === true) return true;
  }
  return false;
}

/** What an expression sees besides `object` and `previous_object`. */
export interface RequestFacts {
  security: SecurityMetadata;
  principal: Principal;
  request: SecurityContext['request'];
  uriVariables: Record<string, string>;
  logger: Logger;
  /** The operation being served (`Resource.name`), named in the log when an expression fails. */
  operation?: string;
  /** The resource of the items `object` and `previous_object` are, unless a call names another. */
  resource?: ResourceMetadata;
  /** The request's reads of related items (`object.shop.owner`); without it, a relation is its IRI. */
  relations?: RelationReads;
}

/**
 * Evaluates an expression; false on any error (logged). An error of the request's data (a missing member,
 * a type mismatch: ExpressionDataError) is the client's mistake: a warning of one line, no stack. Anything
 * else (a voter or custom code that throws, a bug of ours) is a fault of the service: an error with its stack.
 */
export async function allows(
  expression: CompiledExpression,
  facts: RequestFacts,
  object: unknown,
  previousObject: unknown,
  resource: ResourceMetadata | undefined = facts.resource,
): Promise<boolean> {
  try {
    const { relations } = facts;
    const paths = expression.memberPaths;
    if (relations && resource) {
      // Reading through a relation (`object.shop.owner`): the expression sees the related items themselves.
      object = await relations.view(resource, object, paths.object);
      previousObject = await relations.view(resource, previousObject, paths.previous_object);
    }
    return (await expression.evaluate(contextOf(facts, object, previousObject))) === true;
  } catch (e) {
    logFailure(expression, facts, e, 'access denied');
    return false;
  }
}

/**
 * Whether an `assert` expression holds for an item written (`object`, `previous_object` the stored one,
 * `value` the property's value or the item); false on any error, logged as a failing security expression is.
 */
export async function assertionHolds(
  expression: CompiledExpression,
  facts: RequestFacts,
  object: unknown,
  previousObject: unknown,
  value: unknown,
): Promise<boolean> {
  try {
    const context = { ...contextOf(facts, object, previousObject), variables: { value } };
    return (await expression.evaluate(context)) === true;
  } catch (e) {
    logFailure(expression, facts, e, 'assertion not met');
    return false;
  }
}

/**
 * The value of an expression that computes one (a property's `default: { expression }`, which sees no item),
 * or undefined on any error, logged as a failing security expression is: the caller refuses the write.
 */
export async function computedValue(expression: CompiledExpression, facts: RequestFacts): Promise<unknown> {
  try {
    return await expression.value(contextOf(facts, null, null));
  } catch (e) {
    logFailure(expression, facts, e, 'write refused');
    return undefined;
  }
}

/** What a scope's request values see (server/expression/scope.ts): the request, no item. */
export const scopeContext = (facts: RequestFacts): SecurityContext => contextOf(facts, null, null);

function contextOf(facts: RequestFacts, object: unknown, previousObject: unknown): SecurityContext {
  return {
    user: facts.principal.user,
    roles: [...facts.principal.roles],
    object,
    previous_object: previousObject,
    request: facts.request,
    uriVariables: facts.uriVariables,
    isGranted: (attribute, subject) => isGranted(facts.security, facts.principal, attribute, subject),
  };
}

function logFailure(expression: CompiledExpression, facts: RequestFacts, e: unknown, outcome: string): void {
  const where = { expression: expression.source, operation: facts.operation };
  if (e instanceof ExpressionDataError)
    facts.logger.warn({ ...where, reason: e.message }, `security expression does not fit the request; ${outcome}`);
  else facts.logger.error({ ...where, err: e }, `security expression failed; ${outcome}`);
}

/** A denied request: 401 with a Bearer challenge for an anonymous user, 403 for an authenticated one. */
export function accessDenied(principal: Principal, message: string | undefined): HttpError {
  const detail = message ?? 'Access Denied.';
  if (principal.user === null) return new HttpError(401, detail, { headers: { 'WWW-Authenticate': 'Bearer' } });
  return new HttpError(403, detail);
}
