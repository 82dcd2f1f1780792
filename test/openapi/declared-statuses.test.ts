/**
 * The statuses the server can answer an operation, from the operation's facts (its options, the settings, the
 * stages it runs), against the responses its OpenAPI document lists, for every operation of every HTTP fixture:
 * the edge's (400 for a refused Host, 406, 401 for invalid credentials, 429 and 503 of a rate limit, JSON:API's 400), a body's (400, 413,
 * 415), a batch's (413, 400), the store's (503), a write scope's (403), a taken identifier's and a restricted
 * delete's (409).
 */
import { expect } from 'chai';
import { readdirSync } from 'node:fs';
import { scopeSources } from '../../grammar/scope-plan.js';
import { optionValue } from '../../server/metadata/options.js';
import { rateLimitOf } from '../../server/metadata/rate-limit.js';
import { readsIndex } from '../../server/metadata/search-index.js';
import type { ApiMetadata, OperationMetadata } from '../../server/metadata/types.js';
import { loadApi } from '../../server/load-api.js';
import { openApiDocument } from '../../server/openapi/index.js';
import { takesBatch } from '../../server/pipeline/bulk.js';
import { stagesOf } from '../../server/pipeline/chain.js';
import { mayRestrict } from '../../server/pipeline/relations/referential-actions.js';
import { JSONAPI_FORMAT } from '../../server/pipeline/representation/jsonapi.js';
import { readsBody } from '../../server/pipeline/stages/deserialize.js';
import { authenticates } from '../../server/security/authenticate.js';
import { fromRoot } from '../support/paths.js';

const DIR = fromRoot('test/fixtures/http');
/** Fixtures made to fail loading (their own tests say how). */
const BROKEN = new Set(['mutators-missing-export.api', 'mutators-not-function.api']);

/** A status the code can answer, the words its documented description must hold for this cause, and where. */
type Cause = [status: number, words: string, where: string];

/** The statuses the code can answer the operation with, for each cause. */
function answerable(op: OperationMetadata, api: ApiMetadata): Cause[] {
  const causes: Cause[] = [
    [400, 'Host header', 'protocol/host.ts'],
    [406, 'Accept header', 'execute.ts, negotiateOutput'],
  ];
  const stages = new Set(stagesOf(op, api.settings).map(({ name }) => name));
  const messenger = optionValue(op, api.settings, 'messenger');
  const dispatchOnly = messenger === true || messenger === 'input';
  if (authenticates(api.security)) causes.push([401, 'cannot be verified', 'http/authentication.ts']);
  if (rateLimitOf(op, api.settings))
    causes.push([429, 'Too many requests', 'rate-limit.ts'], [503, 'rate limit', 'rate-limit.ts']);
  if (api.settings.formats[JSONAPI_FORMAT]) causes.push([400, 'JSON:API', 'jsonapi-query.ts']);
  if (readsBody(op, api.settings))
    causes.push(
      [400, 'Invalid input', 'deserialize.ts'],
      [413, 'request body', 'request-body.ts'],
      [415, 'Content-Type', 'checkInputType'],
    );
  if (takesBatch(op, api.settings)) causes.push([413, 'bulk_max_items', 'bulk.ts'], [400, 'batch is empty', 'bulk.ts']);
  const index = readsIndex(op, undefined);
  const namesRelated = readsBody(op, api.settings) && op.resource.properties.some((p) => p.relation);
  if ((stages.has('read') && !index) || (stages.has('write') && !dispatchOnly) || namesRelated)
    causes.push([503, 'data store', 'error-response.ts']);
  if (index) causes.push([503, 'search index', 'search/client.ts']);
  if (messenger && stages.has('write')) causes.push([503, 'message broker', 'writes/dispatch.ts']);
  const writes = ['POST', 'PUT', 'PATCH', 'DELETE'].includes(op.method) && stages.has('write');
  if (writes && scopeSources(optionValue(op, 'scope')) !== undefined) causes.push([403, 'write scope', 'scopes.ts']);
  if (op.method === 'POST' && stages.has('write') && !dispatchOnly && op.resource.identifier?.readOnly === false)
    causes.push([409, 'identifier is already held', 'writes/conflicts.ts']);
  if (op.method === 'DELETE' && stages.has('write') && mayRestrict(api, op.resource))
    causes.push([409, 'onDelete is restrict', 'referential-actions.ts']);
  return causes;
}

type Responses = Record<string, { description: string }>;

function documented(doc: Record<string, unknown>, op: OperationMetadata): Responses | undefined {
  const item = (doc.paths as Record<string, Record<string, { responses: Responses }>>)[op.path];
  const additional = item?.additionalOperations as unknown as Record<string, { responses: Responses }> | undefined;
  return (item?.[op.method.toLowerCase()] ?? additional?.[op.method])?.responses;
}

describe('OpenAPI: every status the server can answer is documented (HTTP fixtures)', () => {
  it('for every operation of every test/fixtures/http/*.api', async () => {
    const missing: string[] = [];
    let checked = 0;
    for (const name of readdirSync(DIR).filter((n) => n.endsWith('.api'))) {
      let api: ApiMetadata;
      try {
        api = await loadApi(`${DIR}/${name}`);
      } catch (e) {
        if (BROKEN.has(name)) continue;
        throw new Error(`${name} does not load: ${(e as Error).message}`);
      }
      expect(BROKEN.has(name), `${name} is listed as broken but loads`).to.equal(false);
      const doc = openApiDocument(api);
      for (const op of api.resources.flatMap((r) => r.operations)) {
        const responses = op.hidden ? undefined : documented(doc, op);
        // Left out: a hidden route, another operation with the same method and path, a route answering 404 only.
        if (!responses || Object.keys(responses).join() === '404') continue;
        for (const [status, words, where] of answerable(op, api)) {
          checked++;
          if (!responses[status]?.description.includes(words))
            missing.push(`${name}: ${op.method} ${op.path}: ${status} "${words}" (${where})`);
        }
      }
    }
    expect(missing).to.deep.equal([]);
    expect(checked).to.be.greaterThan(1000);
  });
});
