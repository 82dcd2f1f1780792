/**
 * The leak test's oracle (test/http/scopes-leaks.test.ts): whether a scope holds for an item, for one caller,
 * computed here from the scope's plan (grammar/scope-plan.ts, the split every scope goes through) with SQL's
 * three-valued logic written out by hand, independently of the store conditions the server compiles
 * (server/expression/scope.ts): a comparison with a null on either side is unknown, and so is one whose request
 * value fails; `not` keeps unknown unknown; an item is in scope only when the whole is true (docs/scopes.md, "Nulls"
 * and "When a request value fails"). A literal `null` asks whether the property is null.
 */
import { parseExpression, type ExprNode } from '../../../grammar/expression.js';
import { planScope, type ScopePlan } from '../../../grammar/scope-plan.js';
import { compileExpression, type SecurityContext } from '../../../server/expression/evaluate.js';
import { truthy } from '../../../server/expression/values.js';

/** True, false, unknown. */
type Truth = boolean | null;

/** A stored row as the test made it, relations as IRIs; `at(iri)` finds a related row. */
export interface OracleItem {
  values: Record<string, unknown>;
  /** The type of each property (int, number, string, bool, … or a resource name for a relation). */
  types: Record<string, string>;
}

export type RowFinder = (iri: string) => OracleItem | undefined;

/** A scope compiled for the oracle: `holds(item, context)` says whether the item is in scope for that caller. */
export interface OracleScope {
  source: string;
  holds(item: OracleItem, context: SecurityContext, find: RowFinder): Promise<boolean>;
}

export function oracleScope(source: string): OracleScope {
  const parsed = parseExpression(source);
  if (!parsed.ok) throw new Error(`the scope ${source} does not parse: ${parsed.message}`);
  const planned = planScope(parsed.ast);
  if (!planned.ok) throw new Error(`the scope ${source} does not compile: ${planned.message}`);
  const plan = planned.plan;
  return {
    source,
    holds: async (item, context, find) => (await truth(plan, source, { item, context, find })) === true,
  };
}

interface Env {
  item: OracleItem;
  context: SecurityContext;
  find: RowFinder;
}

async function truth(p: ScopePlan, source: string, env: Env): Promise<Truth> {
  switch (p.kind) {
    case 'and': {
      const parts = await Promise.all(p.parts.map((part) => truth(part, source, env)));
      if (parts.includes(false)) return false;
      return parts.every((t) => t === true) ? true : null;
    }
    case 'or': {
      const parts = await Promise.all(p.parts.map((part) => truth(part, source, env)));
      if (parts.includes(true)) return true;
      return parts.every((t) => t === false) ? false : null;
    }
    case 'not': {
      const t = await truth(p.part, source, env);
      return t === null ? null : !t;
    }
    case 'request': {
      const v = await requestValue(p.node, source, env.context);
      if (v === FAILED || (v === null && p.node.kind !== 'constant')) return null;
      return truthy(v);
    }
    case 'compare':
      return comparison(p, source, env);
    case 'member': {
      const list = await requestValue(p.values, source, env.context);
      const [value, type] = pathValue(p.path.names, env);
      if (!Array.isArray(list) || value === null) return null;
      const found = list.some((e) => same(value, e, type));
      return p.negated ? !found : found;
    }
  }
}

async function comparison(p: Extract<ScopePlan, { kind: 'compare' }>, source: string, env: Env): Promise<Truth> {
  const v = await requestValue(p.value, source, env.context);
  if (v === FAILED) return null;
  const [stored, type] = pathValue(p.path.names, env);
  let value = stored;
  if (value === null && p.fallback) {
    const fallback = await requestValue(p.fallback, source, env.context);
    value = fallback === FAILED ? null : fallback;
  }
  if (v === null) {
    if (p.value.kind !== 'constant') return null;
    if (p.op === 'eq') return value === null;
    if (p.op === 'ne') return value !== null;
    return null;
  }
  if (value === null) return null;
  if (p.element) return Array.isArray(value) ? value.some((e) => same(e, v, type)) : null;
  const a = typed(value, type);
  const b = typed(v, type);
  if (a === null || b === null) return null;
  switch (p.op) {
    case 'eq':
      return a === b;
    case 'ne':
      return a !== b;
    case 'lt':
      return a < b;
    case 'lte':
      return a <= b;
    case 'gt':
      return a > b;
    case 'gte':
      return a >= b;
  }
}

/** The value a path reads, through to-one relations (null when a step has none), and its property's type. */
function pathValue(names: readonly string[], env: Env): [unknown, string] {
  let row: OracleItem | undefined = env.item;
  for (const name of names.slice(0, -1)) {
    const iri: unknown = row?.values[name];
    row = typeof iri === 'string' ? env.find(iri) : undefined;
    if (!row) return [null, 'string'];
  }
  const last = names[names.length - 1]!;
  return [row.values[last] ?? null, row.types[last] ?? 'string'];
}

/** A value taken with the property's type, as PHP would compare them equal ('7' for an int is 7); null: not comparable. */
function typed(v: unknown, type: string): string | number | boolean | null {
  if (type === 'int' || type === 'number') {
    const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
    return typeof n === 'number' && !Number.isNaN(n) ? n : null;
  }
  if (type === 'bool') return typeof v === 'boolean' ? v : null;
  if (typeof v === 'number') return String(v);
  return typeof v === 'string' ? v : null;
}

const same = (a: unknown, b: unknown, type: string): boolean => {
  const x = typed(a, type);
  return x !== null && x === typed(b, type);
};

const FAILED = Symbol('the request value failed');

/** A request value, evaluated by the expression compiler every `security` rule uses; FAILED when it throws. */
async function requestValue(node: ExprNode, source: string, context: SecurityContext): Promise<unknown> {
  if (node.kind === 'constant') return node.value;
  try {
    return await compileExpression(source.slice(node.start, node.end)).value(context);
  } catch {
    return FAILED;
  }
}
