/**
 * Error documents in API Platform 4's shapes (docs/behaviour.md, "Representations"): the Hydra `Error`
 * (prefix-aware) or plain problem JSON, and the ConstraintViolation list for 422s. All are
 * served as `application/problem+json`.
 */
import { STATUS_CODES } from 'node:http';
import type { HttpError } from './errors.js';

export function errorDocument(
  error: HttpError,
  flavour: 'hydra' | 'problem',
  hydraPrefix: boolean,
): Record<string, unknown> {
  const type = `/errors/${error.status}`;
  const text = error.options.title ?? 'An error occurred';
  if (flavour === 'problem') return { type, title: text, status: error.status, detail: error.detail };
  const title = hydraPrefix ? 'hydra:title' : 'title';
  const description = hydraPrefix ? 'hydra:description' : 'description';
  return {
    '@context': '/contexts/Error',
    '@id': type,
    '@type': hydraPrefix ? 'hydra:Error' : 'Error',
    [title]: text,
    detail: error.detail,
    status: error.status,
    type,
    [description]: error.detail,
  };
}

/**
 * The error resource itself, as `GET /errors/{status}` serves it (docs/behaviour.md, "Representations"): what the
 * `type` and `@id` of every error document name. Its title is `Error {status}`, its detail the status's
 * reason phrase, and its own `type` is `about:blank` (RFC 9457: no more than the status says).
 */
export function errorResource(
  status: number,
  flavour: 'hydra' | 'problem',
  hydraPrefix: boolean,
): Record<string, unknown> {
  const title = `Error ${status}`;
  const detail = STATUS_CODES[status] ?? 'Error';
  if (flavour === 'problem') return { type: 'about:blank', title, status, detail };
  return {
    '@context': '/contexts/Error',
    '@id': `/errors/${status}`,
    '@type': hydraPrefix ? 'hydra:Error' : 'Error',
    [hydraPrefix ? 'hydra:title' : 'title']: title,
    detail,
    status,
    type: 'about:blank',
  };
}

/** The small HTML page of an error resource, for a browser. */
export function errorResourcePage(status: number): string {
  const detail = STATUS_CODES[status] ?? 'Error';
  return (
    `<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>Error ${status}</title></head>` +
    `<body><h1>Error ${status}</h1><p>${detail}</p></body></html>\n`
  );
}
