/**
 * The security expression language: parsing (precedence, offsets) and evaluation with PHP's semantics
 * as Symfony's ExpressionLanguage has them (docs/security-expressions.md).
 */
import { expect } from 'chai';
import { parseExpression, type ExprNode } from '../../grammar/expression.js';
import {
  compileExpression,
  ExpressionCompileError,
  ExpressionDataError,
  type SecurityContext,
} from '../../server/expression/evaluate.js';

function context(over: Partial<SecurityContext> = {}): SecurityContext {
  return {
    user: {
      identifier: 'alice',
      roles: ['ROLE_USER'],
      claims: { email: 'alice@example.com', tenant: 't1', level: 3, groups: ['a', 'b'] },
    },
    roles: ['ROLE_USER', 'ROLE_READER'],
    object: {
      id: 7,
      owner: 'alice',
      tenant: 't1',
      title: 'Dune',
      price: 9.5,
      tags: ['sf', 'classic'],
      published: true,
      author: null,
    },
    previous_object: { id: 7, owner: 'bob', title: 'Dune' },
    request: {
      method: 'PUT',
      path: '/books/7',
      query: { page: '2' },
      headers: { 'x-api-key': 'k1', accept: 'application/ld+json' },
    },
    uriVariables: { id: '7', slug: 'dune', user: 'not-the-user' },
    isGranted: (attribute) => typeof attribute === 'string' && ['ROLE_USER', 'ROLE_READER'].includes(attribute),
    ...over,
  };
}

const run = (source: string, over: Partial<SecurityContext> = {}): Promise<boolean> =>
  compileExpression(source).evaluate(context(over));

async function expectTrue(...sources: string[]): Promise<void> {
  for (const s of sources) expect(await run(s), s).to.equal(true);
}
async function expectFalse(...sources: string[]): Promise<void> {
  for (const s of sources) expect(await run(s), s).to.equal(false);
}
async function expectRuntimeError(source: string, over: Partial<SecurityContext> = {}): Promise<string> {
  try {
    await run(source, over);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error(`expected ${source} to fail at run time`);
}

/** A compact rendering of a tree, to assert how it was grouped. */
function shape(n: ExprNode): string {
  switch (n.kind) {
    case 'constant':
      return JSON.stringify(n.value);
    case 'name':
      return n.name;
    case 'array':
      return `[${n.elements.map(shape).join(', ')}]`;
    case 'hash':
      return `{${n.entries.map((e) => `${shape(e.key)}: ${shape(e.value)}`).join(', ')}}`;
    case 'unary':
      return `(${n.op} ${shape(n.operand)})`;
    case 'binary':
      return `(${shape(n.left)} ${n.op} ${shape(n.right)})`;
    case 'conditional':
      return `(${shape(n.test)} ? ${n.consequent ? shape(n.consequent) : ''} : ${n.alternate ? shape(n.alternate) : 'null'})`;
    case 'coalesce':
      return `(${shape(n.left)} ?? ${shape(n.right)})`;
    case 'member':
      return `${shape(n.object)}${n.nullSafe ? '?.' : '.'}${n.property}`;
    case 'index':
      return `${shape(n.object)}[${shape(n.index)}]`;
    case 'call':
      return `${n.name}(${n.args.map(shape).join(', ')})`;
  }
}
const parsed = (s: string): string => {
  const p = parseExpression(s);
  if (!p.ok) throw new Error(`${s}: ${p.message}`);
  return shape(p.ast);
};

describe('security expressions: parsing', () => {
  it('groups operators by Symfony precedence', () => {
    expect(parsed('a or b and c')).to.equal('(a or (b and c))');
    expect(parsed('a || b && c == d')).to.equal('(a || (b && (c == d)))');
    expect(parsed('1 + 2 * 3')).to.equal('(1 + (2 * 3))');
    expect(parsed('1 - 2 - 3')).to.equal('((1 - 2) - 3)');
    expect(parsed('2 ** 3 ** 2')).to.equal('(2 ** (3 ** 2))');
    expect(parsed("'a' ~ 1 + 2")).to.equal('(("a" ~ 1) + 2)', '~ binds tighter than +');
    expect(parsed('1..3 == x')).to.equal('((1 .. 3) == x)');
    expect(parsed('not a == b')).to.equal('((not a) == b)', 'not binds tighter than comparisons in Symfony');
    expect(parsed('not (a == b)')).to.equal('(not (a == b))');
    expect(parsed('-2 ** 2')).to.equal('((- 2) ** 2)');
    expect(parsed('a not in b')).to.equal('(a not in b)');
    expect(parsed('a ? b : c ? d : e')).to.equal('(a ? b : (c ? d : e))');
    expect(parsed('a ?: b')).to.equal('(a ?  : b)');
    expect(parsed('a ? b')).to.equal('(a ? b : null)');
    expect(parsed('a ?? b ?? c')).to.equal('(a ?? (b ?? c))');
    expect(parsed('a or b ? c : d')).to.equal('((a or b) ? c : d)');
  });

  it('reads literals, members, calls, arrays and hashes', () => {
    expect(parsed(`[1, 'x', "y", true, FALSE, null, 1.5, .5, 1_000, 1e3,]`)).to.equal(
      '[1, "x", "y", true, false, null, 1.5, 0.5, 1000, 1000]',
    );
    expect(parsed("{a: 1, 'b': 2, 3: 4, (k): 5}")).to.equal('{"a": 1, "b": 2, 3: 4, k: 5}');
    expect(parsed("user.claims['email']")).to.equal('user.claims["email"]');
    expect(parsed('object?.owner.name')).to.equal('object?.owner.name');
    expect(parsed('roles[0]')).to.equal('roles[0]');
    expect(parsed("is_granted('EDIT', object)")).to.equal('is_granted("EDIT", object)');
    expect(parsed('notice and order or inside')).to.equal(
      '((notice and order) or inside)',
      'word operators need a boundary',
    );
    expect(parsed(`'it\\'s' ~ "a\\"b" ~ 'tab\\there'`)).to.equal(`(("it's" ~ "a\\"b") ~ "tab\\there")`);
  });

  it('gives every node its offsets in the expression', () => {
    const p = parseExpression("is_granted('ROLE_ADMIN') and object.owner == user");
    if (!p.ok) throw new Error(p.message);
    const root = p.ast;
    expect([root.start, root.end]).to.deep.equal([0, 49]);
    if (root.kind !== 'binary') throw new Error('binary expected');
    expect([root.left.start, root.left.end, root.opStart]).to.deep.equal([0, 24, 25]);
    if (root.right.kind !== 'binary' || root.right.left.kind !== 'member') throw new Error('comparison expected');
    expect([root.right.left.start, root.right.left.end, root.right.left.nameStart]).to.deep.equal([29, 41, 36]);
  });

  it('reports syntax errors with their position', () => {
    const cases: [string, number, RegExp][] = [
      ["is_granted('ROLE_ADMIN'", 10, /unclosed '\('/],
      ['a and', 5, /unexpected end/],
      ["'abc", 0, /unterminated string/],
      ['a b', 2, /unexpected 'b'.*operator is missing/],
      ['a # b', 2, /unexpected character '#'/],
      ['user.foo()', 5, /method calls are not allowed/],
      ['a.', 2, /property name/],
      ['{a 1}', 3, /expected ':'/],
      ['', 0, /empty/],
      ['a )', 2, /unexpected '\)'/],
    ];
    for (const [source, start, message] of cases) {
      const p = parseExpression(source);
      expect(p.ok, source).to.equal(false);
      if (p.ok) continue;
      expect(p.start, source).to.equal(start);
      expect(p.message, source).to.match(message);
    }
  });
});

describe('security expressions: evaluation', () => {
  it('calls is_granted, has_role, is_authenticated and is_fully_authenticated', async () => {
    await expectTrue(
      "is_granted('ROLE_USER')",
      "has_role('ROLE_READER')",
      'is_authenticated()',
      'is_fully_authenticated()',
    );
    await expectFalse("is_granted('ROLE_ADMIN')", "has_role('ROLE_ADMIN')");
    expect(await run('is_authenticated()', { user: null, roles: [] })).to.equal(false);
    expect(await run('is_fully_authenticated() or user == null', { user: null, roles: [] })).to.equal(true);
  });

  it('passes the attribute and subject to is_granted and grants only on true', async () => {
    const calls: unknown[][] = [];
    const isGranted = (a: unknown, s: unknown): unknown => {
      calls.push([a, s]);
      return a === 'EDIT' ? 'yes' : true;
    };
    const ctx = { isGranted: isGranted as SecurityContext['isGranted'] };
    expect(await run("is_granted('VIEW', object)", ctx)).to.equal(true);
    expect(await run("is_granted('EDIT', object)", ctx), 'a truthy non-true vote').to.equal(false);
    expect(calls[0]).to.deep.equal(['VIEW', context().object]);
    expect(await run("is_granted('EDIT')", { isGranted: async () => true })).to.equal(true);
  });

  it('reads variables, members and indexes', async () => {
    await expectTrue(
      'object.owner == user.identifier',
      "user.claims['email'] == 'alice@example.com'",
      "object['title'] == 'Dune'",
      "object.tags[1] == 'classic'",
      "request.headers['x-api-key'] == 'k1'",
      "request.method == 'PUT'",
      'request.query.page == 2',
      "previous_object.owner == 'bob'",
      "'ROLE_READER' in roles",
      'roles[0] == "ROLE_USER"',
    );
  });

  it('reads URI variables by name; the reserved names win', async () => {
    await expectTrue('id == 7', "slug == 'dune'", "user.identifier == 'alice'");
    expect(await run("slug ~ '-' ~ id == 'dune-7'")).to.equal(true);
    expect(await expectRuntimeError('nope == 1')).to.match(/unknown variable 'nope'/);
    expect(() => compileExpression('nope == 1', { uriVariables: ['id'] })).to.throw(
      ExpressionCompileError,
      /unknown variable 'nope'/,
    );
    expect(await compileExpression('id == 7', { uriVariables: ['id'] }).evaluate(context())).to.equal(true);
    expect(
      await compileExpression("(tenant ?? 'none') == 'none'", { uriVariables: ['id'] }).evaluate(context()),
      'a name before ?? may be undefined',
    ).to.equal(true);
  });

  it('casts the result to a boolean as PHP does', async () => {
    await expectFalse('0', "''", "'0'", 'null', '[]', '{}', '0.0', 'false');
    await expectTrue('1', "'a'", "'0.0'", "' '", '[0]', '{a: null}', '-1', 'true');
    expect(await run('object', { object: new Date(0) }), 'an object that is not a plain one is always true').to.equal(
      true,
    );
    expect(await run('object', { object: {} })).to.equal(false);
  });

  it('short-circuits and/or', async () => {
    await expectTrue('true or object.missing', 'not (false and object.missing)');
    await expectFalse('false and object.missing');
    expect(await expectRuntimeError('true and object.missing')).to.match(/no member 'missing'/);
  });

  it('compares with PHP 8 loose equality', async () => {
    await expectTrue(
      "1 == '1'",
      "1 == '1.0'",
      "'1e1' == '10'",
      "'abc' == 'abc'",
      'null == false',
      "null == ''",
      'null == 0',
      'null == []',
      "0 == ''  ? false : true",
      "'1' == ' 1'",
      "100 == '1e2'",
      'true == 5',
      "false == '0'",
      '[1, 2] == [1, 2]',
      "{a: 1, b: 2} == {b: 2, a: '1'}",
      "'abc' != 0",
      "null != '0'",
      '1 == 1.0',
      "'10' == '1e1'",
    );
    await expectFalse(
      "'abc' == 0",
      "null == '0'",
      "'1' == '01' and 'a' == 'A'",
      '[1, 2] == [2, 1]',
      "[1] == '1'",
      "'abc' == 'ABC'",
    );
  });

  it('compares with strict equality', async () => {
    await expectTrue(
      '1 === 1',
      "'a' === 'a'",
      'null === null',
      '[1, [2]] === [1, [2]]',
      "1 !== '1'",
      '{a: 1, b: 2} !== {b: 2, a: 1}',
    );
    await expectFalse("1 === '1'", 'null === false', "0 === ''");
  });

  it('orders values as PHP 8', async () => {
    await expectTrue(
      '1 < 2',
      "'10' > '9'",
      "'abc' < 'abd'",
      "2 < '10'",
      "'a' > 1",
      'null < 1',
      "null <= ''",
      '1.5 >= 1.5',
      '-1 < 0',
    );
    await expectFalse("'10' < '9'", '2 <= 1', 'true > true');
    expect(await expectRuntimeError('[1] < [2]')).to.match(/cannot order/);
  });

  it('evaluates arithmetic on numbers only', async () => {
    await expectTrue(
      '1 + 2 * 3 == 7',
      '7 % 3 == 1',
      '-7 % 3 == -1',
      '7.9 % 3 == 1',
      '2 ** 10 == 1024',
      '7 / 2 == 3.5',
      '-(1 + 2) == -3',
      '+2 == 2',
    );
    expect(await expectRuntimeError('1 / 0')).to.match(/division by zero/);
    expect(await expectRuntimeError('1 % 0')).to.match(/modulo/);
    expect(await expectRuntimeError("'1' + 1")).to.match(/needs numbers/);
    expect(await expectRuntimeError('null + 1')).to.match(/needs numbers/);
    expect(await expectRuntimeError("-'a'")).to.match(/needs a number/);
  });

  it('concatenates with ~ using PHP string conversion', async () => {
    await expectTrue(
      "'a' ~ 1 ~ true ~ false ~ null ~ 'z' == 'a11z'",
      "1.5 ~ '' === '1.5'",
      "(0.1 + 0.2) ~ '' === '0.3'",
      "1e25 ~ '' === '1.0E+25'",
      "10 / 4 ~ '' === '2.5'",
      "0.00001 ~ '' === '1.0E-5'",
      "user.identifier ~ '@' ~ object.tenant == 'alice@t1'",
    );
    expect(await expectRuntimeError("[1] ~ 'a'")).to.match(/cannot convert array/);
  });

  it('tests membership with in / not in (strict, as Symfony)', async () => {
    await expectTrue(
      "'sf' in object.tags",
      "'x' not in object.tags",
      '2 in [1, 2]',
      "'b' in {a: 'b'}",
      '3 in 1..5',
      '5 in 5..1',
      "'a' in user.claims.groups",
    );
    await expectFalse("'2' in [1, 2]", "'a' in {a: 'b'}", 'null in [0, false]', '6 in 1..5');
    expect(await expectRuntimeError("'a' in 'abc'")).to.match(/needs an array/);
  });

  it('builds ranges', async () => {
    await expectTrue('1..3 === [1, 2, 3]', '3..1 === [3, 2, 1]', '1..1 === [1]', '1.5..3 === [1.5, 2.5]');
    expect(await expectRuntimeError("'a'..'c'")).to.match(/needs two numbers/);
  });

  it('matches regular expressions given as PCRE literals', async () => {
    await expectTrue(
      "user.claims['email'] matches '/@example\\\\.com$/'",
      "'ADMIN' matches '/^admin$/i'",
      "'a\\nb' matches '/^b$/m'",
      "'a\\nb' matches '/a.b/s'",
      "'Dune' matches '{^d}i'",
      "12 matches '/^\\\\d+$/'",
      "not ('abc' matches '/^b/')",
    );
    expect(() => compileExpression("'a' matches x")).to.throw(ExpressionCompileError, /string literal/);
    expect(() => compileExpression("'a' matches 'abc'")).to.throw(ExpressionCompileError, /delimited/);
    expect(() => compileExpression("'a' matches '/a/x'")).to.throw(ExpressionCompileError, /flag 'x'/);
    expect(() => compileExpression("'a' matches '/(a/'")).to.throw(ExpressionCompileError, /not valid/);
  });

  it('handles the ternary, elvis and null coalescing operators', async () => {
    await expectTrue(
      "(object.published ? 'yes' : 'no') == 'yes'",
      "(object.author ?: 'anon') == 'anon'",
      "(object.title ?: 'x') == 'Dune'",
      '(false ? 1) === null',
      'object.author ?? true',
      "user.claims['missing'] ?? true",
      "(user.claims.missing.deeper ?? 'd') == 'd'",
      "(nope ?? 'n') == 'n'",
      'object.owner ?? false',
    );
    expect(await run("(user.claims['email'] ?? '') matches '/@/'", { user: null })).to.equal(false);
  });

  it('follows null-safe chains', async () => {
    await expectTrue(
      'object.author?.name === null',
      'object.author?.name.first === null',
      'user?.identifier == "alice"',
    );
    expect(await run("user?.claims['email'] ?? true", { user: null })).to.equal(true);
    expect(await expectRuntimeError('object.author.name')).to.match(/of null/);
    expect(await expectRuntimeError('user.identifier', { user: null })).to.match(/of null/);
  });

  it('builds arrays and hashes', async () => {
    await expectTrue(
      "{a: 1, 'b': [2, 3]}['b'][1] == 3",
      "[1, 'x'][1] == 'x'",
      '{(1 + 1): "two"}[2] == "two"',
      '{a: 1}.a == 1',
    );
  });

  it('knows which expressions read the object', () => {
    expect(compileExpression("is_granted('ROLE_USER')").usesObject).to.equal(false);
    expect(compileExpression('object.owner == user.identifier').usesObject).to.equal(true);
    expect(compileExpression("is_granted('EDIT', previous_object)").usesObject).to.equal(true);
    expect(compileExpression("'object' == request.path").usesObject).to.equal(false);
    expect(compileExpression('user.object == 1').usesObject).to.equal(
      false,
      'a member named object is not the variable',
    );
  });

  it('refuses unknown functions and wrong argument counts at compile time', () => {
    expect(() => compileExpression("is_grantd('ROLE_USER')")).to.throw(
      ExpressionCompileError,
      /unknown function 'is_grantd'/,
    );
    expect(() => compileExpression('is_granted()')).to.throw(ExpressionCompileError, /takes 1 to 2 arguments, not 0/);
    expect(() => compileExpression("has_role('A', 'B')")).to.throw(ExpressionCompileError, /takes 1 argument, not 2/);
    expect(() => compileExpression('is_authenticated(1)')).to.throw(ExpressionCompileError, /takes 0 arguments/);
  });
});

describe("which run-time errors are the data's (ExpressionDataError: a warning) and which the service's", () => {
  const failure = async (source: string, over: Partial<SecurityContext> = {}): Promise<unknown> => {
    try {
      await run(source, over);
    } catch (e) {
      return e;
    }
    throw new Error(`expected ${source} to fail at run time`);
  };

  it('values that do not fit the expression: missing or null members, type mismatches, zero, limits', async () => {
    const cases: [string, Partial<SecurityContext>?][] = [
      ['object.missing == 1'],
      ['object.author.name == 1'],
      ['user.identifier == 1', { user: null }],
      ["request.headers['x-tenant'] == 't1'"],
      ['object.title.length > 1'],
      ['object.title + 1 > 0'],
      ['-object.title'],
      ['object.price / 0 > 1'],
      ['object.price % 0 > 1'],
      ["'a' in object.title"],
      ['object.title..3'],
      ['object.tags ~ "x"'],
      ['object.tags < object.tags'],
      ['object[object.tags] == 1'],
      ['object.price..100000'],
      ["object['constructor'] == 1"],
    ];
    for (const [source, over] of cases) {
      const e = await failure(source, over);
      expect(e, `${source}: ${String(e)}`).to.be.instanceOf(ExpressionDataError);
    }
  });

  it('faults of the service: a voter that throws or never answers, a variable the route lacks', async () => {
    const thrown = new Error('voter bug');
    expect(await failure("is_granted('X')", { isGranted: () => Promise.reject(thrown) })).to.equal(thrown);
    expect(await failure('isbn == 1')).not.to.be.instanceOf(ExpressionDataError);
  });
});
