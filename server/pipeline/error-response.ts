/**
 * An error as the client receives it (docs/behaviour.md, "Errors"): any thrown value becomes an `HttpError`
 * (anything else is a bug: 500, details only in debug mode), then its document in the flavour the client's
 * Accept picks: a JSON:API error document, a constraint violation list (422), or a problem document, Hydra's
 * JSON-LD or plain `application/problem+json`. Every adapter answers errors with it.
 */
import type { Logger } from 'pino';
import type { ApiMetadata } from '../metadata/types.js';
import { HttpError, type Violation } from '../protocol/errors.js';
import { StoreUnavailableError } from '../store/types.js';
import { errorFlavour, negotiateOutput } from '../protocol/negotiation.js';
import { errorDocument } from '../protocol/problem.js';
import { errorDocument as jsonApiErrorDocument, JSONAPI_FORMAT, JSONAPI_MEDIA_TYPE } from './representation/jsonapi.js';
import { constraintViolationDocument, violationsDetail } from './validation/violations.js';

export interface ErrorResponse {
  status: number;
  /** The error's own headers (Allow, Retry-After, WWW-Authenticate…). */
  headers: Record<string, string>;
  contentType: string;
  document: Record<string, unknown>;
}

/** What was thrown, as the HttpError the client gets. */
function asHttpError(e: unknown, debug: boolean): HttpError {
  if (e instanceof HttpError) return e;
  const err = e as { status?: number; expose?: boolean; message?: string; stack?: string };
  if (e instanceof StoreUnavailableError)
    return new HttpError(503, 'The data store cannot be reached; retry later.', { headers: { 'Retry-After': '5' } });
  // Errors from Koa and body parsing carry a client status (400, 413…); keep it.
  if (typeof err?.status === 'number' && err.status >= 400 && err.status < 500)
    return new HttpError(err.status, err.expose && err.message ? err.message : 'Bad Request');
  return new HttpError(500, debug ? String(err?.stack ?? err) : 'Internal Server Error');
}

/** What a request failed with, as the client's error response; a bug or a server-side failure (5xx) is logged. */
export function failureResponse(
  api: ApiMetadata,
  thrown: unknown,
  request: { method: string; url: string; accept: string | undefined },
  options: { debug: boolean; logger: Logger },
): ErrorResponse & { error: HttpError } {
  const error = asHttpError(thrown, options.debug);
  if (!(thrown instanceof HttpError) || error.status >= 500)
    options.logger.error({ err: thrown, method: request.method, url: request.url }, 'request failed');
  return { ...errorResponse(api, error, request.accept), error };
}

function errorResponse(api: ApiMetadata, error: HttpError, accept: string | undefined): ErrorResponse {
  const headers = { ...(error.options.headers ?? {}) };
  if (wantsJsonApi(api.settings.formats, accept))
    return { status: error.status, headers, contentType: JSONAPI_MEDIA_TYPE, document: jsonApiErrorDocument(error) };
  const flavour = errorFlavour(accept);
  const violations = error.options.violations;
  const document = violations
    ? constraintViolationDocument(violations, { hydraPrefix: api.settings.hydraPrefix, jsonld: flavour === 'hydra' })
    : errorDocument(error, flavour, api.settings.hydraPrefix);
  return { status: error.status, headers, contentType: 'application/problem+json; charset=utf-8', document };
}

/** What every error document of an error states, as values: for an adapter that writes its own answer (GraphQL, MCP). */
export interface Problem {
  status: number;
  title: string;
  detail: string;
  violations?: readonly Violation[];
}

export function problemOf(error: HttpError): Problem {
  const violations = error.options.violations;
  // A violation list states its violations and the default title (validation/violations.ts).
  if (violations)
    return { status: error.status, title: DEFAULT_TITLE, detail: violationsDetail(violations), violations };
  return { status: error.status, title: error.options.title ?? DEFAULT_TITLE, detail: error.detail };
}

const DEFAULT_TITLE = 'An error occurred';

/** Errors are JSON:API error documents when the client's Accept picks the configured JSON:API format. */
function wantsJsonApi(formats: Record<string, string[]>, accept: string | undefined): boolean {
  if (!formats[JSONAPI_FORMAT] || !accept) return false;
  try {
    return negotiateOutput(formats, accept, undefined).name === JSONAPI_FORMAT;
  } catch {
    return false;
  }
}
