/**
 * Security expressions (`security`, `securityPostDenormalize`, `securityPostValidation`), in
 * the syntax of Symfony's ExpressionLanguage as API Platform uses it:
 * `is_granted('ROLE_ADMIN') and object.owner == user`. Parsing is delegated to jsep, taught
 * the word operators Symfony has; the checker reports expressions that do not parse, and the
 * server evaluates the tree.
 */
import jsep from 'jsep';

jsep.addBinaryOp('or', 1);
jsep.addBinaryOp('and', 2);
jsep.addBinaryOp('in', 7);
jsep.addBinaryOp('not in', 7);
jsep.addBinaryOp('matches', 7);
jsep.addBinaryOp('starts with', 7);
jsep.addBinaryOp('ends with', 7);
jsep.addBinaryOp('contains', 7);
jsep.addBinaryOp('===', 6);
jsep.addBinaryOp('!==', 6);
jsep.addBinaryOp('..', 8);
jsep.addBinaryOp('**', 11);
jsep.addBinaryOp('~', 9);
jsep.addUnaryOp('not');

export type Expression = jsep.Expression;

export type ParsedExpression = { ok: true; ast: Expression } | { ok: false; message: string; index: number };

export function parseExpression(source: string): ParsedExpression {
  if (source.trim() === '') return { ok: false, message: 'empty expression', index: 0 };
  try {
    return { ok: true, ast: jsep(source) };
  } catch (e) {
    const err = e as Error & { index?: number };
    return { ok: false, message: err.message.replace(/ at character \d+$/, ''), index: err.index ?? 0 };
  }
}
