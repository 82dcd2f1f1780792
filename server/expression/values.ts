/**
 * PHP's value semantics, as a Symfony expression sees them, over the JavaScript values an expression
 * reads: truthiness, string conversion, loose (`==`) and strict (`===`) equality and ordering, per
 * PHP 8. Arrays and plain objects both play PHP arrays (key → value). Anything PHP would only warn
 * about (array to string, ordering of arrays) is an error here, so that the expression denies.
 * docs/security-expressions.md lists the rules.
 */

/** An expression failed while evaluating: callers deny. A fault of the service unless it is an ExpressionDataError. */
export class ExpressionRuntimeError extends Error {}

/**
 * The values the expression read do not fit what it does with them: a member that is missing or of null,
 * a type its operator does not take, a division by zero, a value too large for the evaluation's limits.
 * Those values come from the request (its body, query, headers, the user's claims) or the stored item, so the
 * failure is the client's data, not a fault of the service: it denies like any failure, and is logged as a
 * warning without a stack (docs/security-expressions.md, "When an expression fails").
 */
export class ExpressionDataError extends ExpressionRuntimeError {}

export type Budget = { steps: number };

/** Every comparison of nested values spends from the evaluation's step budget. */
export function spend(budget: Budget, n = 1): void {
  budget.steps -= n;
  if (budget.steps < 0) throw new ExpressionDataError('expression exceeded its work budget');
}

const isMap = (v: unknown): v is Record<string, unknown> | unknown[] => typeof v === 'object' && v !== null;

function isPlainObject(v: object): boolean {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

export function typeName(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v === 'object' ? 'object' : typeof v;
}

/** PHP's cast to bool: false, 0, 0.0, "", "0", null and empty arrays are false. */
export function truthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false) return false;
  if (typeof v === 'number') return v !== 0;
  if (typeof v === 'string') return v !== '' && v !== '0';
  if (Array.isArray(v)) return v.length > 0;
  // Plain objects play PHP arrays (empty is false); any other object is an object, always true in PHP.
  if (typeof v === 'object') return !isPlainObject(v) || Object.keys(v).length > 0;
  return true;
}

const NUMERIC = /^[ \t\n\r\v\f]*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?[ \t\n\r\v\f]*$/;
const isNumeric = (s: string): boolean => NUMERIC.test(s);

/** A number as PHP's string conversion writes it (integers in full, floats with 14 significant digits). */
export function phpNumberString(n: number): string {
  if (Number.isNaN(n)) return 'NAN';
  if (!Number.isFinite(n)) return n > 0 ? 'INF' : '-INF';
  if (Number.isSafeInteger(n)) return Object.is(n, -0) ? '-0' : String(n);
  const [mantissa, exp] = n.toExponential(13).split('e');
  const e = Number(exp);
  const trim = (s: string): string => (s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s);
  if (e < -4 || e >= 15) {
    const m = trim(mantissa);
    return `${m.includes('.') ? m : `${m}.0`}E${e < 0 ? '-' : '+'}${Math.abs(e)}`;
  }
  return trim(n.toFixed(Math.max(0, 13 - e)));
}

/** PHP's string conversion; arrays and objects have none (an error, where PHP would warn). */
export function toPhpString(v: unknown): string {
  if (v === null || v === undefined || v === false) return '';
  if (v === true) return '1';
  if (typeof v === 'number') return phpNumberString(v);
  if (typeof v === 'string') return v;
  throw new ExpressionDataError(`cannot convert ${typeName(v)} to a string`);
}

/** PHP 8 `==`. */
export function looseEquals(a: unknown, b: unknown, budget: Budget): boolean {
  spend(budget);
  a = a ?? null;
  b = b ?? null;
  if (a === null && b === null) return true;
  if (a === null && typeof b === 'string') return b === '';
  if (b === null && typeof a === 'string') return a === '';
  if (typeof a === 'boolean' || typeof b === 'boolean' || a === null || b === null) return truthy(a) === truthy(b);
  if (typeof a === 'number' && typeof b === 'number') return a === b;
  if (typeof a === 'number' && typeof b === 'string') return isNumeric(b) ? a === Number(b) : phpNumberString(a) === b;
  if (typeof a === 'string' && typeof b === 'number') return looseEquals(b, a, budget);
  if (typeof a === 'string' && typeof b === 'string')
    return isNumeric(a) && isNumeric(b) ? Number(a) === Number(b) : a === b;
  if (isMap(a) && isMap(b)) {
    if (a === b) return true;
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    if (ka.length !== kb.length) return false;
    const rb = b as Record<string, unknown>;
    return ka.every((k) => Object.hasOwn(b, k) && looseEquals((a as Record<string, unknown>)[k], rb[k], budget));
  }
  return false;
}

/** PHP `===`: same type and value; arrays and hashes: same keys in the same order with identical values. */
export function strictEquals(a: unknown, b: unknown, budget: Budget): boolean {
  spend(budget);
  a = a ?? null;
  b = b ?? null;
  if (a === b) return true;
  if (!isMap(a) || !isMap(b) || Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every(
    (k, i) => kb[i] === k && strictEquals((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], budget),
  );
}

/** PHP 8 `<=>` for scalars: -1, 0, 1, or NaN when unordered (NAN). Arrays and objects cannot be ordered here. */
export function compare(a: unknown, b: unknown): number {
  a = a ?? null;
  b = b ?? null;
  if (isMap(a) || isMap(b)) throw new ExpressionDataError(`cannot order ${typeName(a)} and ${typeName(b)}`);
  const sign = (x: number, y: number): number => {
    if (x === y) return 0;
    return Math.sign(x - y); // NaN: unordered
  };
  const text = (x: string, y: string): number => (x < y ? -1 : Number(x > y));
  if (a === null && typeof b === 'string') return text('', b);
  if (b === null && typeof a === 'string') return text(a, '');
  if (typeof a === 'boolean' || typeof b === 'boolean' || a === null || b === null)
    return sign(Number(truthy(a)), Number(truthy(b)));
  if (typeof a === 'number' && typeof b === 'number') return sign(a, b);
  if (typeof a === 'number' && typeof b === 'string')
    return isNumeric(b) ? sign(a, Number(b)) : text(phpNumberString(a), b);
  if (typeof a === 'string' && typeof b === 'number') return -compare(b, a);
  const sa = a as string;
  const sb = b as string;
  return isNumeric(sa) && isNumeric(sb) ? sign(Number(sa), Number(sb)) : text(sa, sb);
}
