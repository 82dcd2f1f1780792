/**
 * Hostile security expressions: each one is refused when compiled or fails when evaluated (the caller
 * then denies). None may reach JavaScript's machinery, hang, exhaust the stack or grant.
 */
import { expect } from 'chai';
import {
  compileExpression,
  ExpressionCompileError,
  VOTER_TIMEOUT_MS,
  type SecurityContext,
} from '../../server/expression/evaluate.js';

function context(over: Partial<SecurityContext> = {}): SecurityContext {
  return {
    user: { identifier: 'mallory', roles: ['ROLE_USER'], claims: { name: 'x'.repeat(1000) } },
    roles: ['ROLE_USER'],
    object: { id: 1, owner: 'alice' },
    previous_object: null,
    request: { method: 'GET', path: '/books/1', query: {}, headers: { 'x-long': 'a'.repeat(50_000) + '!' } },
    uriVariables: { id: '1' },
    isGranted: () => false,
    ...over,
  };
}

/** Compiles and evaluates; returns 'refused' (compile error), 'failed' (rejected: deny) or the boolean. */
async function outcome(source: string, over: Partial<SecurityContext> = {}): Promise<'refused' | 'failed' | boolean> {
  let compiled;
  try {
    compiled = compileExpression(source);
  } catch (e) {
    expect(e).to.be.instanceOf(ExpressionCompileError);
    return 'refused';
  }
  try {
    return await compiled.evaluate(context(over));
  } catch {
    return 'failed';
  }
}

/** A bound on what must be quick: far above its time on a loaded machine, far below the failures it rules out. */
const GENEROUS_MS = 10_000;

async function expectDenied(source: string, over: Partial<SecurityContext> = {}): Promise<void> {
  const started = Date.now();
  const result = await outcome(source, over);
  expect(result, source.length > 200 ? `${source.slice(0, 200)}…` : source).to.be.oneOf(['refused', 'failed']);
  // Generous: what this guards against (an unbounded walk or loop) takes minutes or never ends.
  expect(Date.now() - started, `time for ${source.slice(0, 80)}`).to.be.below(GENEROUS_MS);
}

describe('security expressions: hostile input', () => {
  it('never walks prototypes or reaches constructors', async () => {
    for (const s of [
      'user.__proto__',
      'user.constructor',
      "user.constructor.constructor('return process')",
      "object['__proto__']",
      "object['constructor']['constructor']",
      'request.headers.toString',
      'request.headers.hasOwnProperty',
      'roles.length',
      "roles['length'] == 1",
      'roles.push',
      'user.claims.__proto__.polluted',
      "user['__proto__'] ?? true",
      'object.prototype',
      "{a: 1}['__proto__']",
      '{a: 1}.constructor',
      '[1].constructor',
      'user.constructor ?? true',
      'user?.constructor',
      'user.identifier.length',
      "user.identifier['0']",
      'is_granted.call',
      'user.valueOf',
      'object.toJSON',
    ])
      await expectDenied(s);
  });

  it('refuses method calls and any function outside the catalogue', async () => {
    for (const s of [
      "user.constructor.constructor('return 1')()",
      'user.toString()',
      "constructor('x')",
      "eval('1')",
      "Function('return 1')",
      "require('fs')",
      'process.exit()',
      'globalThis.process',
      "import('fs')",
      'user.claims.name.repeat(1e9)',
    ])
      await expectDenied(s);
    expect(await outcome('globalThis')).to.equal('failed', 'an unknown name is not a JavaScript global');
    expect(await outcome('process')).to.equal('failed');
  });

  it('never reads getters, functions or non-own members of the data', async () => {
    let called = false;
    const object = Object.create(
      { inherited: true },
      {
        secret: {
          get: () => {
            called = true;
            return true;
          },
          enumerable: true,
        },
        fn: { value: () => true, enumerable: true },
      },
    );
    for (const s of [
      'object.secret',
      'object.fn',
      'object.inherited',
      "object['secret'] ?? true",
      'object.fn ?? true',
    ]) {
      await expectDenied(s, { object });
    }
    expect(await outcome('true in object', { object }), 'in sees own data values only').to.equal(false);
    expect(called, 'getter never called').to.equal(false);
    const withProtoKey = JSON.parse('{"__proto__": {"admin": true}}');
    await expectDenied('object.__proto__.admin', { object: withProtoKey });
  });

  it('bounds ranges and membership work', async () => {
    for (const s of [
      '1..100000000',
      '-1e308..1e308',
      '0..1e15 == []',
      '1 in 0..99999',
      '(0..9999) == (0..9999) and (0..9999) == (0..9999)',
    ]) {
      await expectDenied(s);
    }
  });

  it('bounds string growth', async () => {
    const doubling = "(request.headers['x-long'] ~ request.headers['x-long'])";
    await expectDenied(`${doubling} ~ ${doubling} == ''`);
    let s = "'aaaaaaaaaaaaaaaa'";
    for (let i = 0; i < 20; i++) s = `(${s} ~ ${s})`;
    await expectDenied(`${s} == 'x'`);
  });

  it('refuses deep nesting with a clear error instead of a stack overflow', async () => {
    for (const s of [
      '('.repeat(3000) + '1' + ')'.repeat(3000),
      'not '.repeat(1500) + 'true',
      '-'.repeat(3000) + '1',
      '['.repeat(3000) + ']'.repeat(3000),
      '1' + ' + 1'.repeat(3000),
      'user' + '.a'.repeat(3000),
      'a ?? '.repeat(2000) + 'true',
      'is_granted('.repeat(2000) + "'x'" + ')'.repeat(2000),
    ]) {
      const started = Date.now();
      let message = '';
      try {
        compileExpression(s);
      } catch (e) {
        message = (e as Error).message;
      }
      expect(message, s.slice(0, 40)).to.match(/nested too deeply|too long/);
      expect(Date.now() - started).to.be.below(GENEROUS_MS);
    }
  });

  it('refuses very long expressions quickly', async () => {
    const long = Array.from({ length: 3000 }, () => "is_granted('ROLE_X')").join(' or ');
    const started = Date.now();
    expect(() => compileExpression(long)).to.throw(ExpressionCompileError, /too long/);
    expect(Date.now() - started).to.be.below(GENEROUS_MS);
  });

  it('matches in linear time, whatever the pattern (no catastrophic backtracking)', async () => {
    for (const p of ['/^(a+)+$/', '/^(a|aa)*$/', '/^(a|a?)+$/', '/^(.*a){12}$/', '/^(\\\\w+\\\\s?)*$/']) {
      const started = Date.now();
      const result = await outcome(`request.headers['x-long'] matches '${p}'`);
      expect(result, p).to.equal(false);
      // A backtracking matcher would take far longer than any bound on these 50,001 characters (exponential).
      expect(Date.now() - started, p).to.be.below(GENEROUS_MS);
    }
    for (const p of ['/(a)\\\\1/', '/(?=a)/', '/(?<!a)b/'])
      expect(await outcome(`'aa' matches '${p}'`), p).to.equal('refused');
  });

  it('fails on cyclic data instead of looping', async () => {
    const a: Record<string, unknown> = { id: 1 };
    a.self = a;
    const b: Record<string, unknown> = { id: 1 };
    b.self = b;
    await expectDenied('object == previous_object', { object: a, previous_object: b });
    await expectDenied('object === previous_object', { object: a, previous_object: b });
    expect(await outcome('object == object', { object: a })).to.equal(true);
  });

  it('stops a busy evaluation on its step budget', async () => {
    const wide = `[${Array.from({ length: 300 }, () => '1..40 == 1..40').join(', ')}] == []`;
    expect(wide.length).to.be.below(8192);
    await expectDenied(wide);
  });

  it('fails closed when a voter throws, rejects or never answers', async function () {
    this.timeout(VOTER_TIMEOUT_MS + 3 * GENEROUS_MS);
    await expectDenied("is_granted('EDIT', object)", {
      isGranted: () => {
        throw new Error('voter bug');
      },
    });
    await expectDenied("is_granted('EDIT', object)", { isGranted: () => Promise.reject(new Error('voter down')) });
    await expectDenied("not is_granted('EDIT', object) or true", {
      isGranted: () => {
        throw new Error('voter bug');
      },
    });
    const started = Date.now();
    const never = await outcome("is_granted('EDIT', object) or true", {
      isGranted: () => new Promise<boolean>(() => undefined),
    });
    expect(never).to.equal('failed');
    // Not before the voter's time is up, and not much after it (a generous margin for a loaded machine).
    expect(Date.now() - started).to.be.within(VOTER_TIMEOUT_MS - 10, VOTER_TIMEOUT_MS + GENEROUS_MS);
  });

  it('does not grant on type confusion', async () => {
    for (const s of [
      "'1' + 1 == 2",
      'null.a',
      'user.identifier.x',
      'roles > 1',
      '1 / 0 == 0',
      'user.claims.name ~ [1]',
      '{a: 1} < {a: 2}',
    ]) {
      await expectDenied(s);
    }
    expect(await outcome('user.identifier == 0')).to.equal(false, 'PHP 8: a non-numeric string is not 0');
    expect(await outcome("'abc' in user")).to.equal(false, 'in over an object compares values strictly');
  });

  it('treats an anonymous request as such', async () => {
    const anonymous = { user: null, roles: [] };
    expect(await outcome("is_granted('ROLE_USER') or is_authenticated()", anonymous)).to.equal(false);
    expect(await outcome("user.identifier == 'alice'", anonymous)).to.equal('failed');
    expect(await outcome("user?.identifier == 'alice'", anonymous)).to.equal(false);
    expect(await outcome("not (user?.identifier == 'alice')", anonymous)).to.equal(
      true,
      'null-safe reads give null, as in Symfony',
    );
  });
});
