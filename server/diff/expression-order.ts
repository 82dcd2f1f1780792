/**
 * How a new access expression compares with the old one, read as what it allows (every access expression —
 * `security`, `securityPostDenormalize`, `scope` — allows what it is true for): the same (spacing, parentheses),
 * narrowed (the old one and more conditions: `A` → `A and B`), widened (the old one or more: `A` → `A or B`), or
 * changed in a way a person must read.
 */
import { parseExpression, type ExprNode } from '../../grammar/expression.js';

export type ExpressionOrder = 'same' | 'narrowed' | 'widened' | 'changed';

/** Offsets in the source are no part of what an expression says. */
const SPAN_KEYS = new Set(['start', 'end', 'opStart', 'nameStart', 'nameEnd']);

const canonical = (node: ExprNode): string =>
  JSON.stringify(node, (key, value: unknown) => (SPAN_KEYS.has(key) ? undefined : value));

const isAnd = (op: string): boolean => op === 'and' || op === '&&';
const isOr = (op: string): boolean => op === 'or' || op === '||';

/** The operands of a chain of `and` (or of `or`), flattened: `A and (B and C)` → A, B, C. */
function operands(node: ExprNode, joins: (op: string) => boolean): string[] {
  if (node.kind === 'binary' && joins(node.op)) return [...operands(node.left, joins), ...operands(node.right, joins)];
  return [canonical(node)];
}

/** Whether every operand of `part` is one of `whole`'s, and `whole` has more. */
function extends_(whole: ExprNode, part: ExprNode, joins: (op: string) => boolean): boolean {
  const [all, some] = [operands(whole, joins), operands(part, joins)];
  return all.length > some.length && some.every((o) => all.includes(o));
}

export function compareExpressions(before: string, after: string): ExpressionOrder {
  const [was, is] = [parseExpression(before), parseExpression(after)];
  // A file that loads has expressions that parse; the text decides otherwise.
  if (!was.ok || !is.ok) return before.trim() === after.trim() ? 'same' : 'changed';
  if (canonical(was.ast) === canonical(is.ast)) return 'same';
  if (extends_(is.ast, was.ast, isAnd)) return 'narrowed';
  if (extends_(is.ast, was.ast, isOr)) return 'widened';
  return 'changed';
}
