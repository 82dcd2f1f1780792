/**
 * Conditional writes (RFC 9110 §13.1.1 and §13.1.2, RFC 6585 §3; docs/behaviour.md, "Conditional writes"): an
 * item PUT, PATCH or DELETE with `If-Match` applies only while the item is still the version whose ETag it names,
 * a creating PUT with `If-None-Match: *` only while no item exists; else 412 and nothing written. An operation
 * with `requireIfMatch` answers 428 to a write that names no version.
 *
 * The ETag an item has is the one its item GET answers (a hash of the body, server/http/respond.ts), so the
 * current ETag is that GET's, run through the one entry with the same caller and `Accept`. The item that GET read
 * becomes the write's condition (state.ts, `WriteCondition`): the store writes only while it is still stored so,
 * in the same atomic step as the write (store/types.ts, `replace` and `delete` with `expected`). A write that
 * raced in between answers 412 rather than being lost.
 */
import { hash } from 'node:crypto';
import { optionValue } from '../metadata/options.js';
import type { OperationMetadata } from '../metadata/types.js';
import { HttpError, notFound, preconditionFailed } from '../protocol/errors.js';
import type { Principal } from '../security/access.js';
import { jsonText } from './representation/json-text.js';
import type { Answers } from './answers.js';
import { isItem, type OperationState, type Representation, type WriteCondition } from './state.js';

/** The ETag of a response body's bytes: what a successful GET carries (server/http/respond.ts). */
export const etagOf = (bytes: Buffer): string => `"${hash('sha1', bytes, 'base64url')}"`;

/** What of a request (execute.ts, `OperationRequest`) its conditions read. */
export interface ConditionalRequest {
  path: string;
  uriVariables: Record<string, string>;
  extension?: string;
  headers: Record<string, string | string[] | undefined>;
  principal: Principal;
  origin: string;
  representation?: Representation;
}

/** The read of the current version: a GET through the one entry (execute.ts), which hands itself in. */
type Execute = (
  op: OperationMetadata,
  request: ConditionalRequest & { method: 'GET'; query: Record<string, never>; internal: true },
) => Promise<{ status: number; body: unknown; state?: OperationState }>;

const header = (request: ConditionalRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return (Array.isArray(value) ? value.join(', ') : value)?.trim() || undefined;
};

/** Whether the operation writes one item named by its path: the writes a precondition applies to. */
const conditional = (op: OperationMetadata): boolean =>
  !op.isCollection && (op.method === 'PUT' || op.method === 'PATCH' || op.method === 'DELETE');

const creates = (op: OperationMetadata): boolean => op.method === 'PUT' && optionValue(op, 'allowCreate') === true;

/** A condition that no longer holds (412); a required `If-Match` missing (428). */
export const preconditionAnswers: Answers = (op) => {
  if (!conditional(op)) return [];
  const required = optionValue(op, 'requireIfMatch') === true;
  return [
    {
      status: 412,
      description: creates(op)
        ? 'The item changed since the version If-Match names, or If-None-Match: * and the item exists: nothing was written.'
        : 'The item changed since the version If-Match names: nothing was written.',
    },
    ...(required
      ? [{ status: 428, description: 'No If-Match: this operation requires the ETag of the version you read.' }]
      : []),
  ];
};

/**
 * The condition the request's write must hold to, undefined for an unconditional write. Throws the 412 of a
 * condition already false, the 428 of a required `If-Match` missing, the 404 of an item not there.
 */
export async function writeCondition(
  op: OperationMetadata,
  request: ConditionalRequest,
  execute: Execute,
): Promise<WriteCondition | undefined> {
  if (!conditional(op)) return undefined;
  const ifMatch = header(request, 'if-match');
  const onlyCreate = creates(op) && header(request, 'if-none-match') === '*';
  if (!ifMatch) {
    if (onlyCreate) return { absent: true };
    if (optionValue(op, 'requireIfMatch') === true)
      throw new HttpError(
        428,
        'This operation requires a conditional request: send If-Match with the ETag of the version you read.',
        { title: 'Precondition Required' },
      );
    return undefined;
  }
  // If-Match and If-None-Match: * together never hold: the first wants the item, the second none.
  if (onlyCreate) throw preconditionFailed('If-Match and If-None-Match: * cannot both hold: nothing was written.');
  const current = await currentVersion(op, request, execute);
  if (!current || !(ifMatch === '*' || matchesStrongly(ifMatch, current.etag)))
    throw preconditionFailed(
      'The item changed since the version the request names (If-Match): nothing was written. Read it again, ' +
        'then send the new ETag.',
    );
  return { expected: current.item };
}

/**
 * The item as stored now and its ETag, from the resource's item GET at the same path (none: undefined). An
 * item not there is a 404 (RFC 9110 §13.2.1: that answer comes before any precondition), except for a creating
 * PUT, whose If-Match then fails.
 */
async function currentVersion(
  op: OperationMetadata,
  request: ConditionalRequest,
  execute: Execute,
): Promise<{ item: Record<string, unknown>; etag: string } | undefined> {
  const get = itemGetOf(op);
  if (!get) return undefined;
  const accept = request.representation?.kind === 'values' ? 'application/ld+json' : header(request, 'accept');
  const result = await execute(get, {
    method: 'GET',
    path: request.path,
    query: {},
    uriVariables: request.uriVariables,
    ...(request.extension ? { extension: request.extension } : {}),
    headers: accept ? { accept } : {},
    principal: request.principal,
    origin: request.origin,
    internal: true,
  });
  if (result.status === 404 && !creates(op)) throw notFound();
  const item = result.state?.previousData;
  if (result.status !== 200 || result.body === undefined || !isItem(item)) return undefined;
  return { item, etag: etagOf(Buffer.from(jsonText(result.body))) };
}

/** The resource's item GET at the write's own path (where the client read the ETag). */
const itemGetOf = (op: OperationMetadata): OperationMetadata | undefined =>
  op.resource.operations.find((o) => o.method === 'GET' && !o.isCollection && !o.hidden && o.path === op.path);

/** RFC 9110 §8.8.3.2 strong comparison: a weak tag (`W/"…"`) never matches. */
function matchesStrongly(header: string, etag: string): boolean {
  return header.split(',').some((tag) => tag.trim() === etag);
}
