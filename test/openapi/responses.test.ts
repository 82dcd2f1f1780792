/**
 * The OpenAPI responses against the pipeline (server/openapi/responses.ts): for every operation of every example
 * and fixture, every status the entry and each stage it runs declare (pipeline/answers.ts) is a response of that
 * operation in the document.
 */
import { expect } from 'chai';
import { openApiDocument } from '../../server/openapi/index.js';
import { answersOf } from '../../server/openapi/responses.js';
import { stagesOf } from '../../server/pipeline/chain.js';
import { apiFiles, loadableApis } from '../support/api-files.js';
import { fromRoot } from '../support/paths.js';

type Responses = Record<string, unknown>;

/** An operation's responses in the document: under its method, or its additionalOperations entry. */
function documented(doc: Record<string, unknown>, method: string, path: string): Responses | undefined {
  const item = (doc.paths as Record<string, Record<string, { responses: Responses }>>)[path];
  const additional = item?.additionalOperations as unknown as Record<string, { responses: Responses }> | undefined;
  return (item?.[method.toLowerCase()] ?? additional?.[method])?.responses;
}

describe('OpenAPI: every status a stage declares is documented', () => {
  const files = ['examples', 'test/fixtures', 'test/openapi/fixtures'].flatMap((d) => apiFiles(fromRoot(d)));

  it('for every stage × operation of every example and fixture', async () => {
    let checked = 0;
    const missing: string[] = [];
    for await (const { file, api } of loadableApis(files)) {
      const doc = openApiDocument(api);
      for (const op of api.resources.flatMap((r) => r.operations)) {
        if (op.hidden) continue;
        const responses = documented(doc, op.method, op.path);
        if (!responses) continue; // left out: another operation has the same method and path
        const only = answersOf(op, api).some((a) => a.only);
        for (const { name, answers } of stagesOf(op, api.settings)) {
          for (const { status, only: alone } of answers?.(op, api) ?? []) {
            if (only && !alone) continue; // an operation that answers one status only documents that one
            checked++;
            if (!(String(status) in responses)) missing.push(`${file}: ${op.method} ${op.path}, ${name}: ${status}`);
          }
        }
      }
    }
    expect(missing).to.deep.equal([]);
    expect(checked).to.be.greaterThan(500);
  });
});
