import { expect } from 'chai';
import { parse } from '../../grammar/parse.js';
import { check } from '../../grammar/checker/index.js';
import * as A from '../../grammar/ast.js';

const at = (text: string, offset: number): string => {
  const r = parse(text);
  const p = r.lines.position(offset);
  return `${p.line + 1}:${p.character + 1}`;
};

describe('parser and AST', () => {
  it('gives every node the range of its text', () => {
    const text =
      'resource Book {\n  routePrefix: "/library"\n  properties { id: int { identifier: true }, tags: string[] }\n  operations { Get weather { uriTemplate: "/w/{id}" } }\n}\n';
    const { document, diagnostics } = parse(text);
    expect(diagnostics).to.deep.equal([]);
    const book = A.resources(document)[0];
    expect(text.slice(book.range.start, book.range.end)).to.match(/^resource Book \{[\s\S]*\}$/);
    const prefix = book.options[0];
    expect(text.slice(prefix.range.start, prefix.range.end)).to.equal('routePrefix: "/library"');
    expect(prefix.value).to.include({ kind: 'string', value: '/library' });
    const tags = book.propertiesBlocks[0].properties[1];
    expect(tags.type).to.include({ name: 'string', array: true });
    expect(text.slice(tags.type!.range.start, tags.type!.range.end)).to.equal('string[]');
    const op = book.operationsBlocks[0].operations[0];
    expect(op.opKind.text).to.equal('Get');
    expect(op.name?.text).to.equal('weather');
    expect(text.slice(op.range.start, op.range.end)).to.equal('Get weather { uriTemplate: "/w/{id}" }');
  });

  it("reads an operation name only on the kind's line", () => {
    const { document } = parse('resource A { operations {\n Get\n Put\n} }');
    const ops = A.resources(document)[0].operationsBlocks[0].operations;
    expect(ops.map((o) => [o.opKind.text, o.name?.text])).to.deep.equal([
      ['Get', undefined],
      ['Put', undefined],
    ]);
  });

  it('decodes JSON strings and keeps number literals', () => {
    const { document } = parse('config { a: "x\\u00e9\\n\\"", b: 1.50, c: -2e3, d: [DESC, "ASC"], e { f: null } }');
    const cfg = A.configs(document)[0].body;
    expect(A.toPlain(cfg)).to.deep.equal({ a: 'xé\n"', b: 1.5, c: -2000, d: ['DESC', 'ASC'], e: { f: null } });
    expect((cfg.entries[1].value as A.NumberValue).raw).to.equal('1.50');
    expect(cfg.entries[4].block).to.equal(true);
  });

  it('keeps comments with their ranges', () => {
    const text = '// one\nresource A { /* two */ properties { id: int } } // three\n';
    const { document } = parse(text);
    expect(document.comments.map((c) => text.slice(c.range.start, c.range.end))).to.deep.equal([
      '// one',
      '/* two */',
      '// three',
    ]);
  });

  it('reports three separate defects in one file, each on its own line', () => {
    const text = [
      'resource Book {',
      '  paginationItemPerPage: 10',
      '  properties { id: int, title: strng }',
      '  operations { GetColection }',
      '}',
    ].join('\n');
    const result = check(text);
    expect(result.all.map((d) => [d.code, at(text, d.range.start), d.suggestion])).to.deep.equal([
      ['unknown-option', '2:3', 'paginationItemsPerPage'],
      ['unknown-type', '3:32', 'string'],
      ['unknown-operation-kind', '4:16', 'GetCollection'],
    ]);
  });

  it('reports several independent syntax errors', () => {
    const text = [
      'resource A {',
      '  a: 1 b: 2',
      '  c:',
      '  properties { id: int }',
      '}',
      'filter f: search { properties: ["x" "y"] }',
      'api "t" @',
    ].join('\n');
    const codes = parse(text).diagnostics.map((d) => `${d.code}@${at(text, d.range.start)}`);
    expect(codes).to.deep.equal([
      'missing-separator@2:8',
      'syntax-error@3:4',
      'missing-separator@6:37',
      'invalid-character@7:9',
    ]);
  });

  it('counts positions in UTF-16 code units after multibyte text', () => {
    const text = 'resource A { description: "😀😀 ü", paginatonEnabled: true }';
    const d = check(text).all.find((x) => x.code === 'unknown-option')!;
    expect(text.slice(d.range.start, d.range.end)).to.equal('paginatonEnabled');
    expect(at(text, d.range.start)).to.equal(`1:${text.indexOf('paginaton') + 1}`);
  });

  it('places an unclosed block at its opening brace', () => {
    const text = 'resource A {\n  properties {\n    id: int\n  operations { Get }\n}\n';
    const [d] = parse(text).diagnostics;
    expect(d.code).to.equal('syntax-error');
    expect(at(text, d.range.start)).to.equal('2:14');
    expect(d.message).to.match(/never closed/);
  });

  it('reads a graphql block as an operations block: kind, name on its line, options', () => {
    const text =
      'resource Book {\n  graphql {\n    Query\n    Mutation create\n' +
      '    Query byIsbn { resolver: "./books.mjs#byIsbn" }\n    QueryCollection\n    cheap\n  }\n' +
      '  properties { id: int, graphql: string }\n}\n';
    const { document, diagnostics } = parse(text);
    expect(diagnostics).to.deep.equal([]);
    const book = A.resources(document)[0];
    expect(book.operationsBlocks).to.deep.equal([]);
    expect(book.options).to.deep.equal([]);
    const [block] = book.graphqlBlocks;
    expect(text.slice(block.range.start, block.range.end)).to.match(/^graphql \{[\s\S]*\}$/);
    expect(block.operations.map((o) => [o.opKind.text, o.name?.text])).to.deep.equal([
      ['Query', undefined],
      ['Mutation', 'create'],
      ['Query', 'byIsbn'],
      ['QueryCollection', undefined],
      ['cheap', undefined],
    ]);
    const byIsbn = block.operations[2];
    expect(text.slice(byIsbn.range.start, byIsbn.range.end)).to.equal(
      'Query byIsbn { resolver: "./books.mjs#byIsbn" }',
    );
    // `graphql` stays a property name, and a key elsewhere (config's graphql settings).
    expect(book.propertiesBlocks[0].properties.map((p) => p.name.text)).to.deep.equal(['id', 'graphql']);
    const config = parse('config { graphql { enabled: true } }');
    expect(config.diagnostics).to.deep.equal([]);
    expect(A.toPlain(A.configs(config.document)[0].body)).to.deep.equal({ graphql: { enabled: true } });
  });

  it('reads `graphql:` in a resource as an option key, and ends a properties block left open at `graphql {`', () => {
    const option = parse('resource Book {\n  graphql: true\n  properties { id: int }\n}\n');
    expect(option.diagnostics).to.deep.equal([]);
    const book = A.resources(option.document)[0];
    expect(book.options.map((e) => e.key.text)).to.deep.equal(['graphql']);
    expect(book.graphqlBlocks).to.deep.equal([]);
    const open = parse('resource A {\n  properties {\n    id: int\n  graphql { Query }\n}\n');
    expect(A.resources(open.document)[0].graphqlBlocks.map((b) => b.operations.length)).to.deep.equal([1]);
  });
});
