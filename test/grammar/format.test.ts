/**
 * The formatter (grammar/format.ts): the bookstore example in its canonical layout, the layout rules,
 * comments kept where they were, and the texts it refuses to format.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { parse } from '../../grammar/parse.js';
import { format } from '../../grammar/format.js';
import { commentTexts } from '../support/front-end-defects.js';

// A normative example of the language's layout, written out here so the test stands alone.
const BOOKSTORE = `api "Bookstore" { version: "1.0.0" }

config {
  defaults {
    pagination_items_per_page: 30
    pagination_client_items_per_page: true
    pagination_maximum_items_per_page: 100
  }
  patch_formats: ["application/merge-patch+json"]
}

filter bookOrder: order { properties: ["id", "title", "price"] }
filter bookPrice: range { properties: ["price", "id"] }
filter bookSearch: search { properties: { title: "partial", author: "exact" } }

resource Book {
  paginationClientEnabled: true          // ?pagination=false is honoured for books

  properties {
    id: int { identifier: true }
    title: string { required: true, maxLength: 255 }
    author: string
    price: number { minimum: 0 }
    publishedAt: datetime { nullable: true }
  }

  operations {
    GetCollection { filters: ["bookOrder", "bookPrice", "bookSearch"] }   // GET /books
    Post                                                                   // POST /books
    Get                                                                    // GET /books/{id}
    Put { allowCreate: true }                                              // PUT /books/{id}, upsert
    Patch                                                                  // PATCH /books/{id}
    Delete                                                                 // DELETE /books/{id}
    Query {                                                                // QUERY /books
      parameters: {
        title: { filter: "bookSearch", property: "title" }
        price: { filter: "bookPrice", property: "price" }
      }
    }
  }
}

// Cursor pagination: newest first, no count query.
filter eventRange: range { properties: ["id"] }
filter eventOrder: order { properties: ["id"] }

resource Event {
  properties { id: int { identifier: true }, name: string }
  operations {
    GetCollection {
      paginationViaCursor: [{ field: "id", direction: "DESC" }]
      paginationPartial: true
      filters: ["eventRange", "eventOrder"]
    }
    Get
  }
}

// A resource with a prefix and a hidden item route.
resource Place {
  routePrefix: "/geo"                     // /geo/places, /geo/places/{id}
  properties { id: int { identifier: true }, name: string { required: true } }
  operations {
    GetCollection
    Get { controller: "NotFoundAction", read: false, output: false }   // IRIs exist, GET answers 404
    Post
  }
}

// Known to the service, no routes.
resource Receipt {
  properties { id: int { identifier: true }, total: number }
  operations {}
}
`;

/** Formats, failing the test on a refusal. */
function fmt(text: string): string {
  const result = format(text);
  if (!result.ok) throw new Error(`format refused: ${result.reason}`);
  return result.text;
}

/** The AST without source positions. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shape);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => k !== 'range' && k !== 'nameRange')
      .map(([k, v]) => [k, shape(v)]),
  );
}

/** What formatting must preserve, and the formatter's own invariants. */
function expectFaithful(input: string): string {
  const output = fmt(input);
  const before = parse(input);
  const after = parse(output);
  expect(after.diagnostics, output).to.deep.equal([]);
  expect(shape(after.document.declarations)).to.deep.equal(shape(before.document.declarations));
  expect(commentTexts(output)).to.deep.equal(commentTexts(input));
  expect(fmt(output), 'idempotent').to.equal(output);
  if (output !== '') expect(output).to.match(/(^|[^\n])\n$/);
  expect(output).not.to.match(/[ \t]\n/);
  return output;
}

describe('format', () => {
  describe('the bookstore example', () => {
    it('keeps every comment, the AST, and is idempotent', () => {
      const output = expectFaithful(BOOKSTORE);
      expect(parse(output).document.comments.map((c) => c.text)).to.deep.equal(
        parse(BOOKSTORE).document.comments.map((c) => c.text),
      );
      expect(parse(output).document.comments).to.have.length(13);
    });

    it('lays it out canonically', () => {
      const output = fmt(BOOKSTORE);
      expect(output).to.contain(
        '  paginationClientEnabled: true  // ?pagination=false is honoured for books\n\n  properties {\n',
      );
      expect(output).to.contain(`    Post${' '.repeat(65)}// POST /books\n`);
      expect(output).to.contain(
        `    Query {${' '.repeat(62)}// QUERY /books\n      parameters: {\n        title: { filter: "bookSearch", property: "title" }\n`,
      );
      expect(output).to.contain('resource Event {\n  properties { id: int { identifier: true }, name: string }\n');
      expect(output).to.contain('filter bookOrder: order { properties: ["id", "title", "price"] }\nfilter bookPrice');
      expect(output).to.contain('  operations {}\n}\n');
      expect(output.startsWith('api "Bookstore" { version: "1.0.0" }\n\nconfig {\n  defaults {\n')).to.equal(true);
    });
  });

  describe('layout', () => {
    it('keeps short values inline, properties included, and breaks what does not fit', () => {
      expect(
        fmt(
          'resource A { x: {a:1,b:2}, y: [1,2,\n3], e: {}, f: [], properties { id: int {identifier: true}, n: string } }',
        ),
      ).to.equal(
        'resource A {\n  x: { a: 1, b: 2 }\n  y: [1, 2, 3]\n  e: {}\n  f: []\n  properties { id: int { identifier: true }, n: string }\n}\n',
      );
    });

    it('applies one rule to every block: one line when written so, fitting, without comments', () => {
      // Written on one line and fitting: one line, whatever the block (resource, properties, defaults, option).
      expect(fmt('resource A { properties { id: int }, operations { Get } }')).to.equal(
        'resource A { properties { id: int }, operations { Get } }\n',
      );
      expect(fmt('config { defaults { a: 1, b: 2 } }')).to.equal('config { defaults { a: 1, b: 2 } }\n');
      // Written one member per line: stays so, for `defaults` and `properties` alike.
      expect(fmt('config {\n  defaults {\n    a: 1, b: 2\n  }\n}')).to.equal(
        'config {\n  defaults {\n    a: 1\n    b: 2\n  }\n}\n',
      );
      expect(fmt('resource A {\n  properties {\n    id: int\n  }\n}')).to.equal(
        'resource A {\n  properties {\n    id: int\n  }\n}\n',
      );
      // A block inside written over several lines keeps every block around it over several lines.
      expect(fmt('config { a: { b: {\n c: 1 } } }')).to.equal(
        'config {\n  a: {\n    b: {\n      c: 1\n    }\n  }\n}\n',
      );
      // The first member decides: on the bracket's line, the block may be joined.
      expect(fmt('config {\n  d { a: 1,\n b: 2 }\n}')).to.equal('config {\n  d { a: 1, b: 2 }\n}\n');
    });

    it('breaks a value that does not fit in 100 columns, member by member', () => {
      const items = Array.from({ length: 8 }, (_, i) => `"item-number-${i}"`);
      const output = fmt(`config { list: [${items.join(', ')}], short: [${items.slice(0, 2).join(', ')}] }`);
      expect(output).to.equal(
        `config {\n  list: [\n${items.map((i) => `    ${i}\n`).join('')}  ]\n  short: [${items.slice(0, 2).join(', ')}]\n}\n`,
      );
      expect(output.split('\n').every((l) => l.length <= 100)).to.equal(true);
    });

    it('counts the indentation and key in the 100 columns', () => {
      const value = `"${'x'.repeat(100 - '  key: ['.length - ']'.length - 2)}"`;
      expect(fmt(`config { key: [${value}] }`)).to.equal(`config {\n  key: [${value}]\n}\n`);
      expect(fmt(`config { keys: [${value}] }`)).to.equal(`config {\n  keys: [\n    ${value}\n  ]\n}\n`);
    });

    it('lays out a graphql block as an operations block, idempotently', () => {
      const input =
        'config{graphql{enabled:true}}\nresource Book { properties { id: int }\n graphql {Query, QueryCollection cheap {resolver:"./b.mjs#c",paginationType:page}\n' +
        '  Mutation create,DeleteMutation delete }\n operations { Get } }';
      const output = expectFaithful(input);
      expect(output).to.equal(
        'config { graphql { enabled: true } }\n\nresource Book {\n  properties { id: int }\n  graphql {\n    Query\n' +
          '    QueryCollection cheap { resolver: "./b.mjs#c", paginationType: page }\n    Mutation create\n' +
          '    DeleteMutation delete\n  }\n  operations { Get }\n}\n',
      );
      expect(fmt('resource A { graphql { Query, Mutation create } }')).to.equal(
        'resource A { graphql { Query, Mutation create } }\n',
      );
    });

    it('keeps `key { … }` and `key: { … }` as written', () => {
      expect(fmt('config {\n  defaults { a: 1 }\n  collection: { pagination { b: 2 } }\n}')).to.equal(
        'config {\n  defaults { a: 1 }\n  collection: { pagination { b: 2 } }\n}\n',
      );
    });

    it('re-serialises strings canonically and keeps numbers and bare words as written', () => {
      expect(
        fmt('api "A\\u0042\\/c" { "quoted key": "tab\\u0009", n: 1.50, e: 2E3, d: DESC, z: null, t: false }'),
      ).to.equal('api "AB/c" { "quoted key": "tab\\t", n: 1.50, e: 2E3, d: DESC, z: null, t: false }\n');
    });

    it('writes operations, properties, filters and mutators on canonical lines', () => {
      const input = [
        'filter  byTitle :search{properties:[title]}',
        'resource Book{operations{Get   weather{read:false},Post,Delete},properties{tags:string [ ]{maxLength:3},author:Author}}',
        'mutator resource Book : "./m.mjs#r"',
        'mutator operation "get weather":"./m.mjs#o"',
        'mutator operation weather: "./m.mjs#w"',
      ].join('\n');
      expect(fmt(input)).to.equal(
        [
          'filter byTitle: search { properties: [title] }',
          '',
          'resource Book {',
          '  operations { Get weather { read: false }, Post, Delete }',
          '  properties { tags: string[] { maxLength: 3 }, author: Author }',
          '}',
          '',
          'mutator resource Book: "./m.mjs#r"',
          'mutator operation "get weather": "./m.mjs#o"',
          'mutator operation weather: "./m.mjs#w"',
          '',
        ].join('\n'),
      );
    });

    it('keeps an empty operations block, resource and config as `{}`', () => {
      expect(fmt('resource A {\n  operations {\n  }\n}\nresource B {}\nconfig {\n}')).to.equal(
        'resource A {\n  operations {}\n}\n\nresource B {}\nconfig {}\n',
      );
    });

    it('collapses blank lines to at most one, and drops them after `{` and before `}`', () => {
      expect(fmt('\n\nconfig {\n\n\n  a: 1\n\n\n\n  b: 2\n  c: 3\n\n}\n\n\n\napi "x"\n\n\n')).to.equal(
        'config {\n  a: 1\n\n  b: 2\n  c: 3\n}\n\napi "x"\n',
      );
    });

    it('formats an empty or blank file to the empty text', () => {
      expect(fmt('')).to.equal('');
      expect(fmt('\n  \n')).to.equal('');
    });

    it('puts each top-level declaration on its own line, a blank line around those of several lines', () => {
      expect(fmt('api "x" filter f: order { properties: [id] }\nresource A { operations {} }')).to.equal(
        'api "x"\nfilter f: order { properties: [id] }\nresource A { operations {} }\n',
      );
      expect(
        fmt(
          'filter f: order { properties: [id] }\nresource A {\n  operations {}\n}\nfilter g: order {\n  properties: [id]\n}\nmutator resource A: "./m.mjs#r"',
        ),
      ).to.equal(
        'filter f: order { properties: [id] }\n\nresource A {\n  operations {}\n}\n\nfilter g: order {\n  properties: [id]\n}\n\nmutator resource A: "./m.mjs#r"\n',
      );
    });
  });

  describe('comments', () => {
    it('aligns the trailing comments of consecutive lines one column after the longest code', () => {
      const input =
        'resource A {\n  operations {\n    Get { read: false } // one\n    Post   // two\n\n    Put // alone\n    Delete\n    Patch // three\n  }\n}';
      expect(fmt(input)).to.equal(
        'resource A {\n  operations {\n    Get { read: false }  // one\n    Post                 // two\n\n    Put  // alone\n    Delete\n    Patch  // three\n  }\n}\n',
      );
    });

    it('aligns across depths and after an opening bracket, and keeps two comments on one line', () => {
      const input = 'config {\n  a: 1 // a\n  b { // b\n    ccc: 2 /* c */ // c2\n  }\n}';
      expect(fmt(input)).to.equal('config {\n  a: 1      // a\n  b {       // b\n    ccc: 2  /* c */  // c2\n  }\n}\n');
    });

    it('keeps a trailing comment at the end of its member line, and breaks the enclosing value', () => {
      expect(fmt('config { x: { a: 1, // one\n b: 2 }, y: 3 /* three */ }')).to.equal(
        'config {\n  x: {\n    a: 1  // one\n    b: 2\n  }\n  y: 3  /* three */\n}\n',
      );
    });

    it('keeps a comment after an opening brace on that line', () => {
      expect(fmt('resource A {   // about A\n  operations { Get {  // the item\n a: 1 } }\n}')).to.equal(
        'resource A {  // about A\n  operations {\n    Get {  // the item\n      a: 1\n    }\n  }\n}\n',
      );
    });

    it('keeps own-line comments before the next member, at its indentation', () => {
      expect(fmt('config {\n// first\n      /* second */ a: [\n 1,\n        // before two\n 2]\n}')).to.equal(
        'config {\n  // first\n  /* second */\n  a: [\n    1\n    // before two\n    2\n  ]\n}\n',
      );
    });

    it('keeps comments before a closing brace inside the block', () => {
      expect(fmt('resource A {\n  operations { Get\n  // more later\n  }\n  // end of A\n}')).to.equal(
        'resource A {\n  operations {\n    Get\n    // more later\n  }\n  // end of A\n}\n',
      );
      expect(fmt('config { a: { /* empty */ } }')).to.equal('config {\n  a: {  /* empty */\n  }\n}\n');
    });

    it('moves a comment inside a member head to its own line before the member', () => {
      expect(fmt('resource /* r */ A {\n  x: /* x */ 1\n  operations {\n    Get // g\n    { a: 1 }\n  }\n}')).to.equal(
        '/* r */\nresource A {\n  /* x */\n  x: 1\n  operations {\n    // g\n    Get { a: 1 }\n  }\n}\n',
      );
    });

    it('keeps a comment verbatim whatever characters it holds (NUL and other control characters)', () => {
      const input =
        '// own\u0000line\nconfig {\n  a: 1  // trail\u0000ing\n  b: 2  /* bl\u0000ock */  // two\u0001\u001f\n}\n';
      expect(fmt(input)).to.equal(input);
      expectFaithful(input);
    });

    it('keeps comments at the start and the end of the file, block comments verbatim', () => {
      const input = '// top\n\napi "x"  // trailing\n/* multi\n     line */\n\n\n// last   \n';
      expect(fmt(input)).to.equal('// top\n\napi "x"  // trailing\n/* multi\n     line */\n\n// last\n');
    });
  });

  describe('refusal', () => {
    for (const [label, input, line] of [
      ['a syntax error', 'api "x"\nresource A {\n  x: \n}\n', 3],
      ['a missing separator', 'config {\n  a: 1 b: 2\n}', 2],
      ['an unterminated string', 'api "x\n', 1],
      ['an unknown declaration', 'api "x"\n\nresorce A {}\n', 3],
    ] as const) {
      it(`refuses ${label}, naming its line`, () => {
        const result = format(input);
        expect(result.ok).to.equal(false);
        expect(result).not.to.have.property('text');
        if (!result.ok) expect(result.reason).to.match(new RegExp(`^line ${line}: `));
      });
    }

    it('formats a file that only the checker would reject', () => {
      expect(fmt('resource A {\n  nosuchOption: 1, operations { Fly } }')).to.equal(
        'resource A {\n  nosuchOption: 1\n  operations { Fly }\n}\n',
      );
    });
  });

  describe('random documents', () => {
    const word = fc.constantFrom('a', 'title', 'bookOrder', 'DESC', 'x_1', 'filter', 'page');
    const key = fc.oneof(word, fc.constantFrom('"quoted key"', '"a"'));
    const scalar = fc.oneof(
      fc.constantFrom('"plain"', '"es\\"caped"', '"\\u0041\\/b"', '"tab\\there"', '""', `"${'long'.repeat(12)}"`),
      fc.constantFrom('0', '1.50', '-2', '3e2', '42', 'true', 'false', 'null'),
      word,
    );
    // Every separator holds a comma or a line break, as two members on one line need one.
    const sep = fc.constantFrom(
      ', ',
      ',',
      '\n',
      ',\n',
      '\n\n\n',
      ' // trailing\n',
      ', /* inline */ ',
      '\n  // own line\n',
      '\n\n/* block\n  comment */\n',
    );
    const open = fc.constantFrom('', ' ', '\n', ' // after brace\n', '\n\n');
    const close = fc.constantFrom('', ' ', '\n', ',\n', '\n// before close\n', ', ');
    const block = (member: fc.Arbitrary<string>, [l, r] = ['{', '}']): fc.Arbitrary<string> =>
      fc
        .tuple(open, fc.array(fc.tuple(member, sep), { maxLength: 4 }), close)
        .map(([o, ms, c]) => l + o + ms.map(([m, s], i) => (i < ms.length - 1 ? m + s : m)).join('') + c + r);

    const { value, object } = fc.letrec<{ value: string; object: string; entry: string }>((tie) => ({
      value: fc.oneof(
        { maxDepth: 3, depthIdentifier: 'value' },
        scalar,
        block(tie('value'), ['[', ']']),
        tie('object'),
      ),
      object: block(tie('entry')),
      entry: fc.oneof(
        fc
          .tuple(key, fc.constantFrom(': ', ':', ' : ', ': /* in head */ '), tie('value'))
          .map(([k, c, v]) => k + c + v),
        fc.tuple(key, tie('object')).map(([k, o]) => `${k} ${o}`),
      ),
    }));
    const option = fc.tuple(word, value).map(([k, v]) => `${k}: ${v}`);
    const property = fc
      .tuple(word, fc.constantFrom('int', 'string', 'Book'), fc.boolean(), fc.option(object))
      .map(([n, t, array, c]) => `${n}: ${t}${array ? '[]' : ''}${c ? ` ${c}` : ''}`);
    const operation = fc
      .tuple(fc.constantFrom('Get', 'Post', 'GetCollection'), fc.option(word), fc.option(object))
      .map(([k, n, b]) => `${k}${n ? ` ${n}` : ''}${b ? ` ${b}` : ''}`);
    const resourceMember = fc.oneof(
      option,
      block(property).map((b) => `properties ${b}`),
      block(operation).map((b) => `operations ${b}`),
    );
    const declaration = fc.oneof(
      fc.option(object).map((b) => `api "T"${b ? ` ${b}` : ''}`),
      object.map((b) => `config ${b}`),
      fc
        .tuple(word, fc.constantFrom('order', 'search'), fc.option(object))
        .map(([n, k, b]) => `filter ${n}: ${k}${b ? ` ${b}` : ''}`),
      fc.tuple(fc.constantFrom('Book', '/* r */ Book'), block(resourceMember)).map(([n, b]) => `resource ${n} ${b}`),
      fc.constantFrom(
        'mutator resource Book: "./m.mjs#f"',
        'mutator operation "get book": "./m.mjs#g"',
        'mutator operation getBook: "./m.mjs#h"',
      ),
    );
    const topSep = fc.constantFrom('\n', ' ', '\n\n\n', ' // after\n', '\n// between\n\n', '\n/* x */\n');
    const documentText = fc
      .tuple(fc.constantFrom('', '// header\n', '/* h */ '), fc.array(fc.tuple(declaration, topSep), { maxLength: 4 }))
      .map(([head, ds]) => head + ds.map(([d, s]) => d + s).join(''));

    it('generates valid documents', () => {
      fc.assert(
        fc.property(documentText, (text) => {
          expect(parse(text).diagnostics, text).to.deep.equal([]);
        }),
        { numRuns: 200 },
      );
    });

    it('formats them idempotently, keeping the AST and every comment', () => {
      fc.assert(
        fc.property(documentText, (text) => {
          expectFaithful(text);
        }),
        { numRuns: 300 },
      );
    });
  });
});
