/**
 * Row-level scopes (docs/scopes.md): a security expression that must become a store query. This module reads the
 * parsed expression (grammar/expression.ts, the one parser) and splits it into what the store answers (a property
 * of the item, or of a related item, compared with a value) and what the request alone decides (`user`, `roles`,
 * `is_granted('ROLE_…')`, literals, URI variables). Anything else is refused with the part that does not compile.
 * The checker reports the refusals; the server turns the plan into store conditions (server/expression/scope.ts).
 */
import { OBJECT_VARIABLES, walkExpression, type ExprNode, type Span } from './expression.js';

/** How far a scope reads through to-one relations: `object.order.shop.owner` is two relations, then a property. */
export const MAX_SCOPE_RELATIONS = 2;

/** A comparison the store answers, in the item-on-the-left direction. */
export type ScopeComparison = 'eq' | 'ne' | 'lt' | 'lte' | 'gt' | 'gte';

/** `object.a.b`: the names read from the item (`['a', 'b']`) and where the path is written. */
export interface ScopePath extends Span {
  names: string[];
}

export type ScopePlan =
  | { kind: 'and' | 'or'; parts: ScopePlan[] }
  | { kind: 'not'; part: ScopePlan }
  /** A value of the request alone, taken as a boolean. */
  | { kind: 'request'; node: ExprNode }
  /**
   * `path op value` (`value` a request value; a literal null asks whether the property is null). `fallback`: the
   * right side of `object.x ?? fallback`, the value compared when the property is null. `element`: `value in
   * object.list`, true when some element of the property's list equals the value.
   */
  | {
      kind: 'compare';
      path: ScopePath;
      op: ScopeComparison;
      value: ExprNode;
      fallback?: ExprNode;
      element?: boolean;
    }
  /** `path in list` / `path not in list`, `list` a request value (an array, or a claim holding one). */
  | { kind: 'member'; path: ScopePath; values: ExprNode; negated: boolean };

export type ScopePlanResult = { ok: true; plan: ScopePlan } | ({ ok: false; message: string } & Span);

/** Thrown inside the planner, caught by planScope: the first part that does not compile. */
class Refused extends Error {
  constructor(
    message: string,
    readonly at: Span,
  ) {
    super(message);
  }
}

const COMPARISONS: Partial<Record<string, ScopeComparison>> = {
  '==': 'eq',
  '===': 'eq',
  '!=': 'ne',
  '!==': 'ne',
  '<': 'lt',
  '<=': 'lte',
  '>': 'gt',
  '>=': 'gte',
};
/** The comparison seen from the other side: `5 < object.x` is `object.x > 5`. */
const MIRRORED: Record<ScopeComparison, ScopeComparison> = {
  eq: 'eq',
  ne: 'ne',
  lt: 'gt',
  lte: 'gte',
  gt: 'lt',
  gte: 'lte',
};
const ARITHMETIC = new Set(['+', '-', '*', '/', '%', '**', '~', '..']);

/**
 * The expressions of a `scope` option's value: one string is both the read and the write scope; the object form
 * names them (`write` defaults to `read`; a scope with `write` alone limits writes only).
 */
export function scopeSources(written: unknown): { read?: string; write: string } | undefined {
  if (typeof written === 'string') return { read: written, write: written };
  if (typeof written !== 'object' || written === null) return undefined;
  const given = written as { read?: unknown; write?: unknown };
  const read = typeof given.read === 'string' ? given.read : undefined;
  const write = typeof given.write === 'string' ? given.write : read;
  if (write === undefined) return undefined;
  return read === undefined ? { write } : { read, write };
}

/** Whether a part of the expression reads the item (then the store must answer it). */
export function readsItem(node: ExprNode): boolean {
  let found = false;
  walkExpression(node, (n) => (found ||= n.kind === 'name' && OBJECT_VARIABLES.has(n.name)));
  return found;
}

/** The plan of a parsed scope, or the first part that cannot become a store query. */
export function planScope(ast: ExprNode): ScopePlanResult {
  try {
    const planned = plan(ast);
    refuseNegatedElements(planned, true);
    return { ok: true, plan: planned };
  } catch (e) {
    if (!(e instanceof Refused)) throw e;
    return { ok: false, message: e.message, start: e.at.start, end: e.at.end };
  }
}

function plan(n: ExprNode): ScopePlan {
  if (!readsItem(n)) return { kind: 'request', node: n };
  switch (n.kind) {
    case 'binary':
      return binary(n);
    case 'unary':
      if (n.op === 'not' || n.op === '!') return { kind: 'not', part: plan(n.operand) };
      throw new Refused(`arithmetic on a property of the item ('${n.op}') does not compile to a store query`, n);
    case 'member':
    case 'name':
      throw new Refused(
        'a property alone is no condition: compare it (`object.published == true`, `object.owner != null`)',
        n,
      );
    case 'call':
      throw new Refused(
        `${n.name}() with the item asks a voter, which no store query can answer: scopes take is_granted('ROLE_…') only`,
        n,
      );
    case 'conditional':
      throw new Refused("'? :' does not compile to a store query: write it with and/or", n);
    default:
      throw new Refused('this part does not compile to a store query', n);
  }
}

function binary(n: Extract<ExprNode, { kind: 'binary' }>): ScopePlan {
  const { op } = n;
  if (op === 'and' || op === '&&' || op === 'or' || op === '||') {
    const kind = op === 'and' || op === '&&' ? 'and' : 'or';
    return { kind, parts: [plan(n.left), plan(n.right)] };
  }
  const comparison = COMPARISONS[op];
  if (comparison) return compare(n, comparison);
  if (op === 'in' || op === 'not in') return membership(n, op === 'not in');
  if (ARITHMETIC.has(op))
    throw new Refused(`arithmetic on a property of the item ('${op}') does not compile to a store query`, n);
  throw new Refused(`'${op}' does not compile to a store query: scopes compare with ==, !=, <, <=, >, >=, in`, n);
}

/** `path op value`, `value op path`, `(path ?? fallback) op value`. */
function compare(n: Extract<ExprNode, { kind: 'binary' }>, op: ScopeComparison): ScopePlan {
  const leftItem = readsItem(n.left);
  const rightItem = readsItem(n.right);
  if (leftItem && rightItem)
    throw new Refused('a comparison between two properties of the item does not compile to a store query', n);
  const [side, value, seen] = leftItem ? [n.left, n.right, op] : [n.right, n.left, MIRRORED[op]];
  if (side.kind === 'coalesce') {
    if (readsItem(side.right)) throw new Refused("the right side of '??' must be a value of the request", side.right);
    return { kind: 'compare', path: pathOf(side.left), op: seen, value, fallback: side.right };
  }
  return { kind: 'compare', path: pathOf(side), op: seen, value };
}

/** `path in list` (a list of the request) or `value in path` (a list property of the item). */
function membership(n: Extract<ExprNode, { kind: 'binary' }>, negated: boolean): ScopePlan {
  if (readsItem(n.left) && readsItem(n.right))
    throw new Refused("'in' between two properties of the item does not compile to a store query", n);
  if (readsItem(n.left)) return { kind: 'member', path: pathOf(n.left), values: n.right, negated };
  const contains: ScopePlan = { kind: 'compare', path: pathOf(n.right), op: 'eq', value: n.left, element: true };
  return negated ? { kind: 'not', part: contains } : contains;
}

/** `object.a`, `object.a?.b`, up to MAX_SCOPE_RELATIONS relations deep. */
function pathOf(n: ExprNode): ScopePath {
  const names: string[] = [];
  let at = n;
  while (at.kind === 'member') {
    names.unshift(at.property);
    at = at.object;
  }
  if (at.kind === 'name' && at.name === 'previous_object')
    throw new Refused('previous_object has no place in a scope: it reads the stored item only (`object`)', at);
  if (at.kind !== 'name' || at.name !== 'object' || names.length === 0) {
    if (n.kind === 'binary' && ARITHMETIC.has(n.op))
      throw new Refused(`arithmetic on a property of the item ('${n.op}') does not compile to a store query`, n);
    if (n.kind === 'call')
      throw new Refused(`${n.name}() with the item asks a voter, which no store query can answer`, n);
    throw new Refused('a scope compares properties of the item (`object.owner`), not this', n);
  }
  if (names.length > MAX_SCOPE_RELATIONS + 1)
    throw new Refused(
      `a scope reads through at most ${MAX_SCOPE_RELATIONS} relations (\`object.order.shop.owner\`)`,
      n,
    );
  return { names, start: n.start, end: n.end };
}

/** `value not in object.list` asks that no element equals the value, which the stores' conditions cannot say. */
function refuseNegatedElements(p: ScopePlan, positive: boolean): void {
  if (p.kind === 'and' || p.kind === 'or') for (const part of p.parts) refuseNegatedElements(part, positive);
  else if (p.kind === 'not') refuseNegatedElements(p.part, !positive);
  else if (p.kind === 'compare' && p.element && !positive)
    throw new Refused("'not in' a list property of the item does not compile to a store query", p.path);
}

/** Every path a plan reads of the item. */
export function scopePaths(p: ScopePlan): ScopePath[] {
  switch (p.kind) {
    case 'and':
    case 'or':
      return p.parts.flatMap(scopePaths);
    case 'not':
      return scopePaths(p.part);
    case 'request':
      return [];
    case 'compare':
    case 'member':
      return [p.path];
  }
}
