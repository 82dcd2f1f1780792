/**
 * What a stage of the pipeline (or its entry) can answer an operation instead of its success: each stage module
 * exports its `Answers`, a function of the operation's metadata alone, and the OpenAPI responses are read from the
 * stages an operation runs (server/openapi/responses.ts). A stage that starts answering a new status declares it
 * here and the document lists it (test/openapi/responses.test.ts holds the two to each other).
 */
import type { ApiMetadata, OperationMetadata } from '../metadata/types.js';

/** A header an answer carries: what it holds and its JSON Schema. */
export interface AnswerHeader {
  description: string;
  schema: Record<string, unknown>;
}

export interface Answer {
  status: number;
  /** Why, as sentences; the causes several stages give for one status are joined. */
  description: string;
  headers?: Record<string, AnswerHeader>;
  /** The answer is a list of constraint violations (a 422), not a plain problem. */
  violations?: true;
  /** The operation answers this and nothing else (a route that always answers 404). */
  only?: true;
}

/** A body read past the `body_size_limit` setting. */
export const bodyTooLarge = (api: ApiMetadata): Answer => ({
  status: 413,
  description: `The request body is larger than ${api.settings.bodySizeLimit} bytes.`,
});

/** A service the operation needs did not answer: 503, retried after `Retry-After` seconds. */
export const unavailable = (description: string): Answer => ({
  status: 503,
  description,
  headers: {
    'Retry-After': { description: 'Seconds to wait before sending the request again.', schema: { type: 'integer' } },
  },
});

/** The store unreachable or too slow (error-response.ts maps `StoreUnavailableError`); never the in-memory store. */
export const storeUnavailable = (): Answer =>
  unavailable('The data store (MongoDB or PostgreSQL) cannot be reached or did not answer in time.');

/** The answers a stage can give an operation (none where it cannot refuse it). */
export type Answers = (op: OperationMetadata, api: ApiMetadata) => readonly Answer[];
