/**
 * A resource's `graphql` block reaches the metadata (server/metadata/load.ts hands it to loadGraphQlOperations as
 * written): the declared operations with their names, options, resolvers and arguments; the defaults without a
 * block; none of its own with `graphql {}`; nothing while GraphQL is off.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { loadApi } from '../../server/serve.js';
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
