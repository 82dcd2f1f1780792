/**
 * A row-level scope compiled once per operation (docs/scopes.md): the plan of grammar/scope-plan.ts with its paths
 * resolved to store fields, and its request values compiled as expressions of their own. `conditions` binds a
 * request's values and gives the store-neutral conditions (server/store/types.ts) every read of the operation
 * adds to its query. Null semantics are SQL's: a comparison whose request side is null matches no item, under
 * `not` too; a literal `null` asks whether the property is null.
 */
import { parseExpression, type ExprNode } from '../../grammar/expression.js';
import { planScope, type ScopeComparison, type ScopePath, type ScopePlan } from '../../grammar/scope-plan.js';
import type { CollectionSpec, Condition, FieldType } from '../store/types.js';
import {
  compileExpression,
  ExpressionCompileError,
  type CompiledExpression,
  type SecurityContext,
} from './evaluate.js';
import { compare as phpCompare, looseEquals, truthy } from './values.js';

/** A relation a path goes through: the item's field holding the related item's reference. */
export interface ScopeRelation {
  field: string;
  target: CollectionSpec;
  /** The related item's reference is this followed by its key (its IRI: `/shops/` then `7`). */
  keyPrefix: string;
}

/** Where a path of the item leads in the stores: relations, then a field of the last item reached. */
export interface ResolvedScopePath {
  relations: ScopeRelation[];
  field: string;
  type: FieldType;
}

/** Resolves `object.shop.owner` (`['shop', 'owner']`); throws when the store cannot read it. */
export type ScopePathResolver = (names: readonly string[]) => ResolvedScopePath;

export interface CompiledScope {
  source: string;
  /** The request's conditions: none when the scope holds for every item (a staff role), or one condition. */
  conditions(context: SecurityContext): Promise<Condition[]>;
}

/** Matches every item; matches none. */
const EVERY: Condition = { op: 'and', conditions: [] };
const NONE: Condition = { op: 'or', conditions: [] };

/** Compiles a scope; throws ExpressionCompileError for what cannot become a store query. */
export function compileScope(
  source: string,
  uriVariables: readonly string[],
  resolve: ScopePathResolver,
): CompiledScope {
  const parsed = parseExpression(source);
  if (!parsed.ok) throw new ExpressionCompileError(`invalid scope "${source}": ${parsed.message}`, parsed.start, 0);
  compileExpression(source, { uriVariables }); // the same names and functions as any security expression
  const planned = planScope(parsed.ast);
  if (!planned.ok)
    throw new ExpressionCompileError(`invalid scope "${source}": ${planned.message}`, planned.start, planned.end);
  const binder = new Binder(source, uriVariables, resolve);
  const bind = binder.plan(planned.plan, true);
  return {
    source,
    conditions: async (context) => {
      const bound = simplified(await bind(context));
      return bound === EVERY || (bound.op === 'and' && bound.conditions.length === 0) ? [] : [bound];
    },
  };
}

type Bound = (context: SecurityContext) => Promise<Condition>;

const NEGATED: Record<ScopeComparison, ScopeComparison> = {
  eq: 'ne',
  ne: 'eq',
  lt: 'gte',
  lte: 'gt',
  gt: 'lte',
  gte: 'lt',
};

/** Turns a plan into a function of the request, negations pushed down to the comparisons. */
class Binder {
  constructor(
    private readonly source: string,
    private readonly uriVariables: readonly string[],
    private readonly resolve: ScopePathResolver,
  ) {}

  plan(p: ScopePlan, positive: boolean): Bound {
    switch (p.kind) {
      case 'and':
      case 'or': {
        const parts = p.parts.map((part) => this.plan(part, positive));
        // De Morgan: under `not`, and becomes or.
        const op = (p.kind === 'and') === positive ? 'and' : 'or';
        return async (ctx) => ({ op, conditions: await Promise.all(parts.map((part) => part(ctx))) });
      }
      case 'not':
        return this.plan(p.part, !positive);
      case 'request': {
        const value = this.value(p.node);
        return async (ctx) => {
          const v = await value(ctx);
          // A failed request value holds neither way (fail closed, under `not` too).
          if (v === null && p.node.kind !== 'constant') return NONE;
          return truthy(v) === positive ? EVERY : NONE;
        };
      }
      case 'compare':
        return this.comparison(p, positive);
      case 'member':
        return this.membership(p.path, this.value(p.values), p.negated !== positive);
    }
  }

  /**
   * A request value: its part of the source compiled as an expression of its own. One that fails (`user.identifier`
   * for an anonymous caller, a voter that throws) is null, which matches no item.
   */
  private value(node: ExprNode): (ctx: SecurityContext) => Promise<unknown> {
    if (node.kind === 'constant') return () => Promise.resolve(node.value);
    const compiled: CompiledExpression = compileExpression(this.source.slice(node.start, node.end), {
      uriVariables: this.uriVariables,
    });
    return (ctx) => compiled.value(ctx).catch(() => null);
  }

  private comparison(p: Extract<ScopePlan, { kind: 'compare' }>, positive: boolean): Bound {
    const path = this.path(p.path);
    const op = positive ? p.op : NEGATED[p.op];
    const literalNull = p.value.kind === 'constant' && p.value.value === null;
    if (literalNull) {
      // `object.x == null`: whether the property is null; an order against null holds for nothing.
      const test: Condition =
        op === 'eq' || op === 'ne' ? { op: 'exists', field: path.field, exists: op === 'ne' } : NONE;
      return () => Promise.resolve(within(path, test));
    }
    const value = this.value(p.value);
    const fallback = p.fallback ? this.value(p.fallback) : undefined;
    return async (ctx) => {
      const v = await value(ctx);
      if (v === null || v === undefined) return NONE;
      const test = fieldTest(path, op, v);
      if (!fallback) return within(path, test);
      // `(object.x ?? d) op v`: x's test where x is set, else d op v decided here.
      const d = await fallback(ctx);
      const holds = d !== null && d !== undefined && compareValues(d, p.op, v) === positive;
      const unset: Condition = { op: 'exists', field: path.field, exists: false };
      return within(path, { op: 'or', conditions: [test, ...(holds ? [unset] : [])] });
    };
  }

  private membership(names: ScopePath, values: (ctx: SecurityContext) => Promise<unknown>, inList: boolean): Bound {
    const path = this.path(names);
    return async (ctx) => {
      const list = await values(ctx);
      if (typeof list !== 'object' || list === null) return NONE;
      const items = (Array.isArray(list) ? list : Object.values(list)).filter((v) => v !== null && v !== undefined);
      const coerced = items.map((v) => coerce(path.type, v)).filter((v) => v !== undefined);
      const test: Condition = inList
        ? { op: 'in', field: path.field, values: coerced }
        : { op: 'and', conditions: coerced.map((v) => ({ op: 'ne', field: path.field, value: v })) };
      return within(path, test);
    };
  }

  private path(names: ScopePath): ResolvedScopePath {
    try {
      return this.resolve(names.names);
    } catch (e) {
      throw new ExpressionCompileError(
        `invalid scope "${this.source}": ${(e as Error).message}`,
        names.start,
        names.end,
      );
    }
  }
}

/** `field op value` with the value of the field's type; a value that cannot be one matches as SQL would. */
function fieldTest(path: ResolvedScopePath, op: ScopeComparison, raw: unknown): Condition {
  const value = coerce(path.type, raw);
  if (value === undefined) return op === 'ne' ? { op: 'exists', field: path.field, exists: true } : NONE;
  if (path.type === 'array' && op !== 'eq') return NONE; // the planner lets only `value in object.list` through
  return { op, field: path.field, value };
}

/** The request value as the stored field's type holds it (PHP's loose `'7' == 7`), or undefined. */
function coerce(type: FieldType, v: unknown): string | number | boolean | undefined {
  switch (type) {
    case 'int':
    case 'number': {
      const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
      if (typeof n !== 'number' || !Number.isFinite(n)) return undefined;
      return type === 'int' && !Number.isInteger(n) ? undefined : n;
    }
    case 'bool':
      return typeof v === 'boolean' ? v : undefined;
    case 'array':
      return typeof v === 'string' || typeof v === 'boolean' || typeof v === 'number' ? v : undefined;
    default:
      if (typeof v === 'string') return v;
      return typeof v === 'number' && Number.isFinite(v) ? String(v) : undefined;
  }
}

/** `a op b` with PHP's loose comparisons (the fallback of `??`, decided without the store). */
function compareValues(a: unknown, op: ScopeComparison, b: unknown): boolean {
  if (op === 'eq') return looseEquals(a, b, { steps: 1000 });
  if (op === 'ne') return !looseEquals(a, b, { steps: 1000 });
  const order = phpCompare(a, b);
  return { lt: order < 0, lte: order <= 0, gt: order > 0, gte: order >= 0 }[op];
}

/** The test on the last item reached, wrapped in one `refers` per relation (innermost last). */
function within(path: ResolvedScopePath, test: Condition): Condition {
  let condition = test;
  for (let i = path.relations.length - 1; i >= 0; i--) {
    const { field, target, keyPrefix } = path.relations[i]!;
    condition = { op: 'refers', field, target, keyPrefix, where: [condition] };
  }
  return condition;
}

/** Folds the conditions that match every item or none, so that a staff role reads with no condition at all. */
function simplified(c: Condition): Condition {
  if (c.op !== 'and' && c.op !== 'or') return c;
  const parts = c.conditions.map(simplified);
  const absorbing = c.op === 'and' ? isNone : isEvery;
  if (parts.some(absorbing)) return c.op === 'and' ? NONE : EVERY;
  const kept = parts.filter((part) => !(c.op === 'and' ? isEvery(part) : isNone(part)));
  return kept.length === 1 ? kept[0]! : { op: c.op, conditions: kept };
}

const isEvery = (c: Condition): boolean => c.op === 'and' && c.conditions.length === 0;
const isNone = (c: Condition): boolean => c.op === 'or' && c.conditions.length === 0;
