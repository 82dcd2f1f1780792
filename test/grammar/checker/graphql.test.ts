/**
 * The checker on GraphQL operations (grammar/checker/rules/graphql.ts): the contract's block is clean, and each
 * mistake is one finding with its code, its place and what to do.
 */
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { check } from '../../../grammar/checker/index.js';
import { findings } from '../../support/findings.js';

const ENABLED = 'config { graphql { enabled: true } }\n';

/** A Book resource (with an identifier) whose graphql block holds `ops`, GraphQL enabled unless told. */
const book = (ops: string | undefined, { enabled = true, options = '' } = {}): string =>
  `${enabled ? ENABLED : ''}resource Book {\n  ${options}\n  properties { id: int { identifier: true }, isbn: string }\n` +
  `${ops === undefined ? '' : `  graphql {\n    ${ops}\n  }\n`}}\n`;

const codes = (text: string): [string, string][] => findings(text).map((d) => [d.code, d.at]);

describe('checker: GraphQL operations', () => {
  it("accepts the contract's block, resolvers resolved against the file's directory", () => {
    const dir = mkdtempSync(join(tmpdir(), 'apidsl-gql-'));
    writeFileSync(join(dir, 'books.mjs'), 'export const byIsbn = () => null, cheap = () => [], publish = (b) => b;\n');
    const text =
      ENABLED.replace(
        'enabled: true',
        'enabled: true, graphiql: true, introspection: true, max_query_depth: 20, ' +
          'max_query_complexity: 500, nesting_separator: "_"',
      ) +
      'resource Book {\n  mercure: true\n  properties { id: int { identifier: true }, isbn: string }\n  graphql {\n' +
      '    Query\n    QueryCollection\n    Mutation create\n    Mutation update\n    DeleteMutation delete\n    Subscription\n' +
      '    Query byIsbn { resolver: "./books.mjs#byIsbn", args: { isbn: { type: "String!" } } }\n' +
      '    QueryCollection cheap { resolver: "./books.mjs#cheap", paginationType: "page" }\n' +
      '    Mutation publish { resolver: "./books.mjs#publish", args: { id: { type: "ID!" } } }\n  }\n}\n';
    const found = check(text, { baseDir: dir }).all.filter((d) => d.code !== 'option-ineffective'); // mercure: no hub
    expect(found).to.deep.equal([]);
  });

  it('names the closest kind for an unknown one, and lists the kinds otherwise', () => {
    const [typo, far] = findings(book('Querry\n    Get'));
    expect(typo).to.include({ code: 'unknown-operation-kind', severity: 'error', at: 'Querry', suggestion: 'Query' });
    expect(far).to.include({ code: 'unknown-operation-kind', at: 'Get' });
    expect(far.message).to.contain('Query, QueryCollection, Mutation, DeleteMutation, Subscription');
  });

  it('refuses a routing option on a GraphQL operation, and a REST-only one', () => {
    expect(codes(book('Query { uriTemplate: "/b/{id}", status: 201, priority: 1 }'))).to.deep.equal([
      ['graphql-routing-option', 'uriTemplate'],
      ['graphql-routing-option', 'status'],
      ['option-not-allowed', 'priority'],
    ]);
    const [d] = findings(book('Mutation create { method: "PUT" }'));
    expect(d.message).to.equal(
      "'method' concerns routes: a GraphQL operation has none (it is reached through /graphql)",
    );
  });

  it('allows each option on the GraphQL kinds of its placement only', () => {
    expect(codes(book('Query { paginationItemsPerPage: 5, nested: true }'))).to.deep.equal([
      ['option-not-allowed', 'paginationItemsPerPage'],
    ]);
    expect(findings(book('Query { paginationItemsPerPage: 5 }'))[0].message).to.equal(
      "'paginationItemsPerPage' is only allowed on GraphQL QueryCollection, not on Query",
    );
    expect(
      codes(book('QueryCollection { paginationItemsPerPage: 5, filters: [], order: { id: "DESC" } }')),
    ).to.deep.equal([]);
  });

  it('suggests among the options of the kind for an unknown one', () => {
    const [d] = findings(book('Query { resolverr: "./b.mjs#x" }'));
    expect(d).to.include({ code: 'unknown-option', at: 'resolverr', suggestion: 'resolver' });
  });

  it('needs a name on Mutation and DeleteMutation', () => {
    const [m, dm] = findings(book('Mutation\n    DeleteMutation'));
    expect(m).to.include({ code: 'graphql-name-missing', severity: 'error', at: 'Mutation' });
    expect(m.message).to.contain('Mutation create is createBook');
    expect(dm).to.include({ code: 'graphql-name-missing', at: 'DeleteMutation' });
    expect(dm.message).to.contain('DeleteMutation delete is deleteBook');
  });

  it('needs a resolver on a named Query or QueryCollection, not on the unnamed ones', () => {
    expect(codes(book('Query\n    QueryCollection\n    Query byIsbn\n    QueryCollection cheap'))).to.deep.equal([
      ['graphql-resolver-missing', 'byIsbn'],
      ['graphql-resolver-missing', 'cheap'],
    ]);
    expect(findings(book('Query byIsbn'))[0].message).to.equal(
      'a named Query is a custom query and needs a resolver (resolver: "./file.mjs#export") that gives its result',
    );
  });

  it('reports a root field declared twice, in one resource or across resources', () => {
    expect(codes(book('Query\n    Query'))).to.deep.equal([['duplicate-graphql-field', 'Query']]);
    // `Book` by default has `createBook`; a second resource named Book by its shortName declares it too.
    const text =
      book(undefined) +
      'resource Other {\n  shortName: "Book"\n  properties { id: int }\n  graphql { Mutation create }\n}\n';
    const [d] = findings(text).filter((f) => f.code === 'duplicate-graphql-field');
    expect(d).to.include({ at: 'create' });
    expect(d.message).to.equal(
      "the GraphQL field 'createBook' is already the default Mutation of 'Book': rename one of them",
    );
  });

  it('finds clashes between the default operations of two resources, and not while GraphQL is off', () => {
    const twins = (enabled: boolean): string =>
      `${enabled ? ENABLED : ''}resource Book { properties { id: int } }\nresource Other { shortName: "Book", properties { id: int } }\n`;
    expect(
      findings(twins(true))
        .filter((d) => d.code === 'duplicate-graphql-field')
        .map((d) => d.message.split("'")[1]),
    ).to.deep.equal(['book', 'books', 'createBook', 'updateBook', 'deleteBook']);
    expect(findings(twins(false)).filter((d) => d.code === 'duplicate-graphql-field')).to.deep.equal([]);
  });

  it('leaves nested operations out of the root fields', () => {
    expect(codes(book('Query\n    Query { nested: true }'))).to.deep.equal([]);
  });

  it('warns that a Subscription does nothing without mercure on the resource', () => {
    const [d] = findings(book('Subscription'));
    expect(d).to.include({ code: 'graphql-subscription-inert', severity: 'warning', at: 'Subscription' });
    expect(codes(book('Subscription', { options: 'mercure: true' })).map(([c]) => c)).to.deep.equal([
      'option-ineffective', // mercure without a hub: reported by the mercure rule
    ]);
  });

  it('warns that a graphql block has no effect while config graphql.enabled is not true', () => {
    const [d] = findings(book('Query', { enabled: false }));
    expect(d).to.include({ code: 'graphql-disabled', severity: 'warning', at: 'graphql' });
    expect(d.message).to.contain('config graphql.enabled is not true');
    const off = book('Query', { enabled: false }).replace(
      'resource',
      'config { graphql { enabled: false } }\nresource',
    );
    expect(codes(off)).to.deep.equal([['graphql-disabled', 'graphql']]);
  });

  it('checks argument types: a GraphQL type reference to a scalar or Iterable', () => {
    const args =
      'a: { type: "String!" }, b: { type: "[ID]" }, c: { type: "[[Int!]!]" }, d: { type: "Iterable" }, ' +
      'e: { type: "createBookInput" }, f: { type: "Strin" }, g: { type: "[Int" }, h: { description: "x" }';
    expect(codes(book(`Mutation create\n    Mutation publish { extraArgs: { ${args} } }`))).to.deep.equal([
      ['unknown-graphql-type', '"createBookInput"'],
      ['unknown-graphql-type', '"Strin"'],
      ['invalid-value', '"[Int"'],
      ['invalid-value', '{ description: "x" }'],
    ]);
    expect(findings(book('Mutation publish { args: { id: { type: "Strin" } } }'))[0]).to.include({
      suggestion: 'String',
    });
  });

  it('checks resolver as a code reference', () => {
    expect(codes(book('Query byIsbn { resolver: "books" }'))).to.deep.equal([['invalid-code-reference', '"books"']]);
  });

  it('warns that a GraphQL option on a REST operation has no effect there', () => {
    const text =
      'resource Book {\n  properties { id: int { identifier: true } }\n' +
      '  operations { GetCollection { resolver: "./b.mjs#x", paginationType: "cursor", nested: true, extraArgs: {} } }\n}\n';
    expect(codes(text)).to.deep.equal([
      ['graphql-only-option', 'resolver'],
      ['graphql-only-option', 'paginationType'],
      ['graphql-only-option', 'nested'],
      ['graphql-only-option', 'extraArgs'],
    ]);
    expect(findings(text)[0].message).to.contain("written in the resource's graphql block");
  });

  it('takes paginationType on the resource (the default of its QueryCollections), and resolver only on an operation', () => {
    expect(codes(book('QueryCollection', { options: 'paginationType: "page"' }))).to.deep.equal([]);
    const [off] = findings(book(undefined, { enabled: false, options: 'paginationType: "page"' }));
    expect(off).to.include({ code: 'option-ineffective', severity: 'warning', at: 'paginationType' });
    expect(off.message).to.contain('only GraphQL operations read it');
    const [d] = findings(book('Query', { options: 'resolver: "./b.mjs#x"' }));
    expect(d).to.include({ code: 'option-not-allowed', at: 'resolver' });
    expect(d.message).to.contain("of the 'graphql' block");
  });

  it('reports a second graphql block, and reads graphql as an option key where no block follows', () => {
    const text = `${ENABLED}resource Book {\n  graphql { Query }\n  graphql { Mutation create }\n  properties { id: int }\n}\n`;
    expect(codes(text)).to.deep.equal([['duplicate-block', 'graphql { Mutation create }']]);
    const [d] = findings(`resource Book {\n  graphql: true\n  properties { id: int }\n}\n`);
    expect(d).to.include({ code: 'unknown-option', at: 'graphql' });
  });
});

describe('checker: graphql.nesting_separator', () => {
  it('accepts any separator without a finding: it names the arguments of filters on related items', () => {
    const config = (separator: string) =>
      `config { graphql { enabled: true, nesting_separator: "${separator}" } }\n` +
      'resource Book { properties { id: int { identifier: true } } }\n';
    expect(codes(config('_'))).to.deep.equal([]);
    expect(codes(config('__'))).to.deep.equal([]);
  });
});

describe('checker: GraphQL type names', () => {
  const file = (...names: string[]) =>
    ENABLED + names.map((n) => `resource ${n} { properties { id: int { identifier: true } } }\n`).join('');
  it("refuses a resource named as one of GraphQL's own types or as a type made for another resource", () => {
    expect(codes(file('Node', 'Book', 'BookEdge', 'BookFilter_order', 'Query'))).to.deep.equal([
      ['graphql-type-clash', 'Node'],
      ['graphql-type-clash', 'BookEdge'],
      ['graphql-type-clash', 'BookFilter_order'],
      ['graphql-type-clash', 'Query'],
    ]);
  });
  it('says nothing while GraphQL is off', () => {
    expect(codes(file('Node', 'Book', 'BookEdge').replace(ENABLED, ''))).to.deep.equal([]);
  });
});
