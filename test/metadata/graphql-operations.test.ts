/**
 * A resource's `graphql` block reaches the metadata (server/metadata/load.ts hands it to loadGraphQlOperations as
 * written): the declared operations with their names, options, resolvers and arguments; the defaults without a
 * block; none of its own with `graphql {}`; nothing while GraphQL is off.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { loadApi } from '../../server/load-api.js';
import type { ApiMetadata } from '../../server/metadata/types.js';

const dir = mkdtempSync(join(tmpdir(), 'apidsl-graphql-ops-'));
writeFileSync(join(dir, 'books.mjs'), 'export const byIsbn = () => null, cheap = () => [], publish = (b) => b;\n');

const load = async (graphql: string, enabled = true): Promise<ApiMetadata> => {
  const file = join(dir, `api-${Math.random().toString(36).slice(2)}.api`);
  writeFileSync(
    file,
    `config { graphql { enabled: ${enabled} } }\n` +
      `resource Book {\n  properties { id: int { identifier: true }, isbn: string }\n  ${graphql}\n}\n`,
  );
  return loadApi(file);
};

/** The root fields of Book's GraphQL operations, nested ones left out. */
const fields = (api: ApiMetadata): string[] =>
  api
    .resource('Book')!
    .graphQlOperations.filter((o) => !o.nested)
    .map((o) => o.fieldName);

describe('metadata: a resource’s graphql block', () => {
  it('gives the declared operations, with their names, options, resolvers and arguments', async () => {
    const api = await load(
      'graphql {\n    Query\n    Mutation create\n' +
        '    Query byIsbn { resolver: "./books.mjs#byIsbn", args: { isbn: { type: "String!", description: "ISBN-13" } } }\n' +
        '    QueryCollection cheap { resolver: "./books.mjs#cheap", paginationType: "page", paginationItemsPerPage: 5 }\n' +
        '    Mutation publish { resolver: "./books.mjs#publish", args: { id: { type: "ID!" } } }\n  }',
    );
    expect(fields(api)).to.deep.equal(['book', 'createBook', 'byIsbnBook', 'cheapBooks', 'publishBook']);
    const ops = api.resource('Book')!.graphQlOperations;
    const byIsbn = ops.find((o) => o.fieldName === 'byIsbnBook')!;
    expect(byIsbn).to.include({ kind: 'Query', name: 'byIsbn' });
    expect(byIsbn.args).to.deep.equal({ isbn: { type: 'String!', description: 'ISBN-13' } });
    expect(byIsbn.resolver).to.be.a('function');
    const cheap = ops.find((o) => o.fieldName === 'cheapBooks')!;
    expect(cheap.operation.options).to.include({ paginationType: 'page', paginationItemsPerPage: 5 });
  });

  it('gives API Platform’s defaults without a block, and none of its own with an empty one', async () => {
    expect(fields(await load(''))).to.deep.equal(['book', 'books', 'createBook', 'updateBook', 'deleteBook']);
    expect(fields(await load('graphql {}'))).to.deep.equal([]);
  });

  it('gives nothing while config graphql.enabled is false', async () => {
    expect((await load('', false)).resource('Book')!.graphQlOperations).to.deep.equal([]);
  });
});

/** Book with these REST operations and graphql block (undefined: none). */
const loadWith = (operations: string, graphql = '', resourceOptions = ''): Promise<ApiMetadata> =>
  load(`${resourceOptions}\n  operations { ${operations} }\n  ${graphql}`);

const GUARDS = [
  'security',
  'securityMessage',
  'securityPostDenormalize',
  'securityPostDenormalizeMessage',
  'securityPostValidation',
  'securityPostValidationMessage',
];
/** The guard options an operation runs with. */
const guardsOf = (api: ApiMetadata, field: string): Record<string, unknown> => {
  const op = api.resource('Book')!.graphQlOperations.find((o) => o.fieldName === field)!;
  return Object.fromEntries(GUARDS.filter((k) => k in op.operation.options).map((k) => [k, op.operation.options[k]]));
};

describe('metadata: GraphQL operations secure by default (their REST twin’s security)', () => {
  it('generates a default operation only where its REST twin exists', async () => {
    expect(fields(await loadWith('Get, Post'))).to.deep.equal(['book', 'createBook']);
    expect(fields(await loadWith('GetCollection, Delete'))).to.deep.equal(['books', 'deleteBook']);
    // update mirrors Patch, else Put.
    expect(fields(await loadWith('Put'))).to.deep.equal(['updateBook']);
    expect(fields(await loadWith(''))).to.deep.equal([]);
  });

  it('gives an operation without security of its own all three stages and messages of its twin', async () => {
    const put =
      'Put { security: "is_granted(\'ROLE_A\')", securityMessage: "a", securityPostDenormalize: "is_granted(\'ROLE_B\')", ' +
      'securityPostDenormalizeMessage: "b", securityPostValidation: "is_granted(\'ROLE_C\')", securityPostValidationMessage: "c" }';
    const api = await loadWith(`Get { security: "is_granted('ROLE_G')" }, ${put}`);
    expect(guardsOf(api, 'updateBook')).to.deep.equal({
      security: "is_granted('ROLE_A')",
      securityMessage: 'a',
      securityPostDenormalize: "is_granted('ROLE_B')",
      securityPostDenormalizeMessage: 'b',
      securityPostValidation: "is_granted('ROLE_C')",
      securityPostValidationMessage: 'c',
    });
    expect(guardsOf(api, 'book')).to.deep.equal({ security: "is_granted('ROLE_G')" });
    const book = api.resource('Book')!;
    expect(book.graphQlOperations.find((o) => o.fieldName === 'updateBook')!.twin).to.equal(
      book.operations.find((o) => o.kind === 'Put'),
    );
  });

  it('keeps the resource-level security where the twin has nothing else, and the twin’s where it overrides', async () => {
    const api = await loadWith(
      'Get, Delete { security: "is_granted(\'ROLE_ADMIN\')" }',
      '',
      'security: "is_granted(\'ROLE_USER\')"',
    );
    expect(guardsOf(api, 'book')).to.deep.equal({ security: "is_granted('ROLE_USER')" });
    expect(guardsOf(api, 'deleteBook')).to.deep.equal({ security: "is_granted('ROLE_ADMIN')" });
  });

  it('applies to declared, nested and custom-resolver operations; one with an expression of its own keeps it', async () => {
    const api = await loadWith(
      'Get { security: "is_granted(\'ROLE_G\')" }, Post { security: "is_granted(\'ROLE_P\')" }, ' +
        'Patch { security: "is_granted(\'ROLE_U\')", securityMessage: "u" }',
      'graphql {\n    QueryCollection\n    Mutation create { securityMessage: "own" }\n' +
        '    Mutation update { securityPostDenormalize: "is_granted(\'ROLE_X\')" }\n' +
        '    Mutation publish { resolver: "./books.mjs#publish", args: { id: { type: "ID!" } } }\n' +
        '    Mutation draft { resolver: "./books.mjs#publish", args: { isbn: { type: "String" } } }\n  }',
    );
    const nested = api.resource('Book')!.graphQlOperations.find((o) => o.nested && o.kind === 'Query')!;
    expect(nested.operation.options.security).to.equal("is_granted('ROLE_G')");
    // A message alone is not security of its own: the twin's expression, the operation's message.
    expect(guardsOf(api, 'createBook')).to.deep.equal({ security: "is_granted('ROLE_P')", securityMessage: 'own' });
    expect(guardsOf(api, 'updateBook')).to.deep.equal({ securityPostDenormalize: "is_granted('ROLE_X')" });
    expect(guardsOf(api, 'publishBook')).to.deep.equal({ security: "is_granted('ROLE_U')", securityMessage: 'u' });
    expect(guardsOf(api, 'draftBook')).to.deep.equal({ security: "is_granted('ROLE_P')" });
  });
});
