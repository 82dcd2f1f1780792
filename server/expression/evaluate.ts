/**
 * Security expressions at run time: compiled once at load, evaluated per request by a sandboxed
 * tree-walking interpreter over the parsed tree (grammar/expression.ts). Nothing is ever turned into
 * JavaScript code: only the catalogue's functions can be called, member access reads own data
 * properties only, and every evaluation has a bounded amount of work. Any failure at run time
 * rejects the evaluation; callers deny (fail closed). docs/security-expressions.md is the reference.
 */
import {
  analyzeExpression,
  objectMemberChains,
  parseExpression,
  usesObjectVariables,
  walkExpression,
  type ExpressionFunction,
  type ExprNode,
} from '../../grammar/expression.js';
import { compilePattern, type Pattern } from '../../grammar/expression-pattern.js';
import {
  ExpressionDataError,
  ExpressionRuntimeError,
  compare,
  looseEquals,
  spend,
  strictEquals,
  toPhpString,
  truthy,
  typeName,
  type Budget,
} from './values.js';

export { ExpressionDataError, ExpressionRuntimeError } from './values.js';

/** The authenticated user, as expressions and custom code see it. */
export interface SecurityUser {
  identifier: string;
  /** The roles the credentials carry (before the role hierarchy). */
  roles: string[];
  /** The JWT payload, or what the authenticator returned. */
  claims: Record<string, unknown>;
}

/** What one evaluation sees. */
export interface SecurityContext {
  user: SecurityUser | null;
  /** The user's roles after the hierarchy. */
  roles: string[];
  object: unknown;
  previous_object: unknown;
  request: { method: string; path: string; query: Record<string, unknown>; headers: Record<string, string> };
  /** The operation's URI variables by name (reserved names win on a clash). */
  uriVariables: Record<string, string>;
  /** Further variables of one kind of expression (an `assert`'s `value`); they win over URI variables. */
  variables?: Readonly<Record<string, unknown>>;
  /** `is_granted(attribute, subject)`: roles for ROLE_* attributes, the voters otherwise. Only `true` grants. */
  isGranted(attribute: unknown, subject: unknown): boolean | Promise<boolean>;
  /** The functions of CompileOptions.functions (a Mercure topic's `iri`, `escape`), by name. */
  functions?: Readonly<Record<string, (...args: unknown[]) => unknown>>;
}

/**
 * Where an item an expression reads (`object`, or a related item read through `object.shop`) keeps its IRI:
 * a symbol, so that no member access can read it; `iri(…)` does.
 */
export const ITEM_IRI: unique symbol = Symbol('item IRI');

/** The dotted paths an expression reads of `object` and of `previous_object`, by variable (`[['shop', 'owner']]`). */
export interface MemberPaths {
  object: readonly (readonly string[])[];
  previous_object: readonly (readonly string[])[];
}

export interface CompiledExpression {
  source: string;
  /** True when the expression reads `object` or `previous_object` (it then runs after the read). */
  usesObject: boolean;
  /**
   * The dotted paths it reads of `object` and `previous_object`: where it may read a relation (`object.shop`, null
   * when the item has none) or through one (`object.shop.owner`), whose related items are read before it is
   * evaluated (security/relation-reads.ts).
   */
  memberPaths: MemberPaths;
  /** The expression's value cast to a boolean as PHP does. Rejects on any run-time error: callers deny. */
  evaluate(context: SecurityContext): Promise<boolean>;
  /** The expression's value itself (a property's `default: { expression }`). Rejects on any run-time error. */
  value(context: SecurityContext): Promise<unknown>;
}

export interface CompileOptions {
  /**
   * The URI variables of the operation. When given, any other unknown name is a compile error;
   * when left out, an unknown name is looked up in `context.uriVariables` at run time (missing → error).
   */
  uriVariables?: readonly string[];
  /** The only variables in scope, checked at compile time (a property default's expression: `user`). */
  variables?: readonly string[];
  /** The callable functions instead of the security expressions' (their code comes in SecurityContext.functions). */
  functions?: Readonly<Record<string, ExpressionFunction>>;
}

/** An expression that cannot be compiled (syntax, unknown function, bad pattern…); offsets are in the expression. */
export class ExpressionCompileError extends Error {
  constructor(
    message: string,
    readonly start: number,
    readonly end: number,
  ) {
    super(message);
  }
}

/** Work allowed per evaluation: one step per node visited, per element of a range, per value compared. */
export const MAX_STEPS = 10_000;
/** Longest string an expression may build with `~`. */
export const MAX_STRING_LENGTH = 65_536;
/** Most elements a `..` range may have. */
export const MAX_RANGE_SIZE = 10_000;
/** How long one `is_granted` (a voter) may take before the expression fails. */
export const VOTER_TIMEOUT_MS = 5_000;

/**
 * Compiles an expression (throws ExpressionCompileError). COMPATIBLE with the first interface:
 * `compileExpression(source)` still works; `options.uriVariables` adds the load-time name check.
 */
export function compileExpression(source: string, options: CompileOptions = {}): CompiledExpression {
  const parsed = parseExpression(source);
  if (!parsed.ok)
    throw new ExpressionCompileError(`invalid expression "${source}": ${parsed.message}`, parsed.start, parsed.end);
  const ast = parsed.ast;
  const issue = analyzeExpression(ast, options)[0];
  if (issue)
    throw new ExpressionCompileError(`invalid expression "${source}": ${issue.message}`, issue.start, issue.end);
  const patterns = new Map<ExprNode, Pattern>();
  walkExpression(ast, (n) => {
    if (n.kind === 'binary' && n.op === 'matches' && n.right.kind === 'constant') {
      const compiled = compilePattern(String(n.right.value));
      if (compiled.ok) patterns.set(n.right, compiled.pattern);
    }
  });
  return {
    source,
    usesObject: usesObjectVariables(ast),
    memberPaths: memberPathsOf(ast),
    evaluate: async (context) => truthy(await new Evaluation(context, patterns).value(ast)),
    value: (context) => new Evaluation(context, patterns).value(ast),
  };
}

/** The dotted paths read of each item variable. */
function memberPathsOf(ast: ExprNode): MemberPaths {
  const paths = { object: [] as string[][], previous_object: [] as string[][] };
  for (const chain of objectMemberChains(ast)) paths[chain.variable as keyof MemberPaths].push(chain.path);
  return paths;
}

/** No path read: an expression that does not read members of the item. */
export const NO_MEMBER_PATHS: MemberPaths = Object.freeze({ object: [], previous_object: [] });

/** The value of a `?.` chain whose left side was null: the rest of the chain is skipped. */
const SHORT_CIRCUIT = Symbol('short-circuit');
/** Never readable, whatever the value: the ways to JavaScript's machinery. */
const FORBIDDEN_MEMBERS = new Set(['__proto__', 'constructor', 'prototype']);

const isNumber = (v: unknown): v is number => typeof v === 'number';

class Evaluation {
  private readonly budget: Budget = { steps: MAX_STEPS };

  constructor(
    private readonly ctx: SecurityContext,
    private readonly patterns: Map<ExprNode, Pattern>,
  ) {}

  async value(n: ExprNode): Promise<unknown> {
    const v = await this.raw(n, false);
    return v === SHORT_CIRCUIT ? null : v;
  }

  /** `lenient`: under `??`, a missing member or variable, or a null on the way, gives null instead of an error. */
  private async raw(n: ExprNode, lenient: boolean): Promise<unknown> {
    spend(this.budget);
    switch (n.kind) {
      case 'constant':
        return n.value;
      case 'name':
        return this.variable(n.name, lenient);
      case 'array': {
        const out: unknown[] = [];
        for (const e of n.elements) out.push(await this.value(e));
        return out;
      }
      case 'hash': {
        const out: Record<string, unknown> = Object.create(null);
        for (const e of n.entries) out[memberKey(await this.value(e.key))] = await this.value(e.value);
        return out;
      }
      case 'unary': {
        const v = await this.value(n.operand);
        if (n.op === 'not' || n.op === '!') return !truthy(v);
        if (!isNumber(v)) throw new ExpressionDataError(`unary '${n.op}' needs a number, not ${typeName(v)}`);
        return n.op === '-' ? -v : v;
      }
      case 'binary':
        return this.binary(n);
      case 'conditional': {
        const test = await this.value(n.test);
        if (n.consequent === null) return truthy(test) ? test : this.value(n.alternate!);
        if (truthy(test)) return this.value(n.consequent);
        return n.alternate ? this.value(n.alternate) : null;
      }
      case 'coalesce': {
        const left = await this.raw(n.left, true);
        return left === SHORT_CIRCUIT || left === null || left === undefined ? this.value(n.right) : left;
      }
      case 'member':
      case 'index': {
        const target = await this.raw(n.object, lenient);
        if (target === SHORT_CIRCUIT) return SHORT_CIRCUIT;
        const key = n.kind === 'member' ? n.property : await this.value(n.index);
        if (target === null || target === undefined) {
          if (n.kind === 'member' && n.nullSafe) return SHORT_CIRCUIT;
          if (lenient) return null;
          throw new ExpressionDataError(
            `cannot read '${String(key)}' of null (write '?.' or '??' when it may be null)`,
          );
        }
        return readMember(target, key, lenient);
      }
      case 'call':
        return this.call(n.name, n.args);
    }
  }

  private variable(name: string, lenient: boolean): unknown {
    const ctx = this.ctx;
    switch (name) {
      case 'user':
        return ctx.user ?? null;
      case 'roles':
        return ctx.roles;
      case 'object':
        return ctx.object ?? null;
      case 'previous_object':
        return ctx.previous_object ?? null;
      case 'request':
        return ctx.request;
    }
    if (ctx.variables && Object.hasOwn(ctx.variables, name)) return ctx.variables[name];
    if (Object.hasOwn(ctx.uriVariables, name)) return ctx.uriVariables[name];
    if (lenient) return null;
    throw new ExpressionRuntimeError(`unknown variable '${name}'`);
  }

  private async call(name: string, args: ExprNode[]): Promise<unknown> {
    switch (name) {
      case 'is_authenticated':
      case 'is_fully_authenticated':
        return this.ctx.user !== null && this.ctx.user !== undefined;
      case 'is_granted':
      case 'has_role': {
        const attribute = await this.value(args[0]);
        const subject = args[1] ? await this.value(args[1]) : null;
        return (await withTimeout(this.ctx.isGranted(attribute, subject))) === true;
      }
    }
    const fn = this.ctx.functions && Object.hasOwn(this.ctx.functions, name) ? this.ctx.functions[name] : undefined;
    if (fn) {
      const values: unknown[] = [];
      for (const a of args) values.push(await this.value(a));
      return fn(...values);
    }
    throw new ExpressionRuntimeError(`unknown function '${name}'`);
  }

  private async binary(n: Extract<ExprNode, { kind: 'binary' }>): Promise<unknown> {
    const { op } = n;
    if (op === 'or' || op === '||') return truthy(await this.value(n.left)) || truthy(await this.value(n.right));
    if (op === 'and' || op === '&&') return truthy(await this.value(n.left)) && truthy(await this.value(n.right));
    const left = await this.value(n.left);
    if (op === 'matches') return this.patterns.get(n.right)!.test(toPhpString(left));
    const right = await this.value(n.right);
    switch (op) {
      case '==':
        return looseEquals(left, right, this.budget);
      case '!=':
        return !looseEquals(left, right, this.budget);
      case '===':
        return strictEquals(left, right, this.budget);
      case '!==':
        return !strictEquals(left, right, this.budget);
      case '<':
        return compare(left, right) < 0;
      case '<=':
        return compare(left, right) <= 0;
      case '>':
        return compare(left, right) > 0;
      case '>=':
        return compare(left, right) >= 0;
      case 'in':
        return this.contains(right, left);
      case 'not in':
        return !this.contains(right, left);
      case 'contains':
        return toPhpString(left).includes(toPhpString(right));
      case 'starts with':
        return toPhpString(left).startsWith(toPhpString(right));
      case 'ends with':
        return toPhpString(left).endsWith(toPhpString(right));
      case '~': {
        const s = toPhpString(left) + toPhpString(right);
        if (s.length > MAX_STRING_LENGTH)
          throw new ExpressionDataError(`string longer than ${MAX_STRING_LENGTH} characters`);
        return s;
      }
      case '..':
        return this.range(left, right);
    }
    if (!isNumber(left) || !isNumber(right))
      throw new ExpressionDataError(`'${op}' needs numbers, not ${typeName(left)} and ${typeName(right)}`);
    switch (op) {
      case '+':
        return left + right;
      case '-':
        return left - right;
      case '*':
        return left * right;
      case '**':
        return left ** right;
      case '/':
        if (right === 0) throw new ExpressionDataError('division by zero');
        return left / right;
      case '%': {
        // PHP's % works on integers: both sides are truncated first.
        const a = Math.trunc(left);
        const b = Math.trunc(right);
        if (b === 0 || !Number.isFinite(a) || !Number.isFinite(b))
          throw new ExpressionDataError('modulo by zero or by a non-finite number');
        return a % b;
      }
    }
    throw new ExpressionRuntimeError(`unknown operator '${op}'`);
  }

  /** `in` as Symfony has it: a strict (===) search among the values of an array or hash. */
  private contains(haystack: unknown, needle: unknown): boolean {
    if (typeof haystack !== 'object' || haystack === null) {
      throw new ExpressionDataError(`'in' needs an array on its right, not ${typeName(haystack)}`);
    }
    const values = Array.isArray(haystack) ? haystack : ownDataValues(haystack);
    spend(this.budget, values.length);
    return values.some((v) => strictEquals(needle, v, this.budget));
  }

  /** `a..b`: PHP's range() with a step of 1, counting down when b < a. */
  private range(from: unknown, to: unknown): number[] {
    if (!isNumber(from) || !isNumber(to) || !Number.isFinite(from) || !Number.isFinite(to)) {
      throw new ExpressionDataError(`'..' needs two numbers, not ${typeName(from)} and ${typeName(to)}`);
    }
    const size = Math.floor(Math.abs(to - from)) + 1;
    if (size > MAX_RANGE_SIZE) throw new ExpressionDataError(`range of ${size} elements (at most ${MAX_RANGE_SIZE})`);
    spend(this.budget, size);
    const step = to >= from ? 1 : -1;
    return Array.from({ length: size }, (_, i) => from + i * step);
  }
}

/** A member name or an index as PHP array keys are: strings, integers (true → 1, null → ""). */
function memberKey(key: unknown): string {
  if (typeof key === 'number' && Number.isInteger(key)) return String(key);
  if (typeof key === 'string') return key;
  if (key === null || key === undefined) return '';
  if (typeof key === 'boolean') return key ? '1' : '0';
  throw new ExpressionDataError(`${typeName(key)} cannot be a key`);
}

/** Reads an own data property (never a getter, a function or JavaScript's machinery). */
function readMember(target: unknown, rawKey: unknown, lenient: boolean): unknown {
  const key = memberKey(rawKey);
  if (typeof target !== 'object' || target === null)
    throw new ExpressionDataError(`cannot read '${key}' of a ${typeName(target)}`);
  if (FORBIDDEN_MEMBERS.has(key)) throw new ExpressionDataError(`'${key}' cannot be read`);
  const isIndex = /^(?:0|[1-9]\d*)$/.test(key);
  const desc = Array.isArray(target) && !isIndex ? undefined : Object.getOwnPropertyDescriptor(target, key);
  if (!desc) {
    if (lenient) return null;
    throw new ExpressionDataError(`no member '${key}' (write '?? default' when it may be missing)`);
  }
  if (!('value' in desc) || typeof desc.value === 'function')
    throw new ExpressionRuntimeError(`'${key}' is not a data member`);
  return desc.value;
}

/** The values of an object's own enumerable data properties (a hash's values). */
function ownDataValues(target: object): unknown[] {
  const out: unknown[] = [];
  for (const key of Object.keys(target)) {
    const desc = Object.getOwnPropertyDescriptor(target, key)!;
    if ('value' in desc && typeof desc.value !== 'function') out.push(desc.value);
  }
  return out;
}

/**
 * A voter that never answers must not hold the request: after VOTER_TIMEOUT_MS the expression fails.
 * One shared watchdog (not a timer per call: that would cost every guarded request) rejects the late ones.
 */
const waiting = new Set<{ deadline: number; reject: (e: Error) => void }>();
let watchdog: NodeJS.Timeout | undefined;

function withTimeout<T>(value: T | Promise<T>): T | Promise<T> {
  if (!(value instanceof Promise)) return value;
  return new Promise<T>((resolve, reject) => {
    const entry = { deadline: Date.now() + VOTER_TIMEOUT_MS, reject };
    waiting.add(entry);
    watchdog ??= setInterval(expireLateVoters, 250).unref();
    value.then(
      (v) => {
        waiting.delete(entry);
        resolve(v);
      },
      (e: unknown) => {
        waiting.delete(entry);
        reject(e);
      },
    );
  });
}

function expireLateVoters(): void {
  const now = Date.now();
  for (const entry of waiting) {
    if (entry.deadline > now) continue;
    waiting.delete(entry);
    entry.reject(new ExpressionRuntimeError(`is_granted took longer than ${VOTER_TIMEOUT_MS} ms`));
  }
  if (waiting.size === 0) {
    clearInterval(watchdog);
    watchdog = undefined;
  }
}
