/** A request for the pipeline's entry (server/pipeline/execute.ts), as an adapter describes it: an anonymous JSON-LD GET of /books unless `over` says otherwise. */
import type { OperationRequest } from '../../server/pipeline/execute.js';
import { ANONYMOUS } from '../../server/security/access.js';

export const operationRequest = (over: Partial<OperationRequest> = {}): OperationRequest => ({
  method: 'GET',
  path: '/books',
  query: {},
  uriVariables: {},
  headers: { accept: 'application/ld+json' },
  principal: ANONYMOUS,
  origin: 'http://entry.test',
  ...over,
});
