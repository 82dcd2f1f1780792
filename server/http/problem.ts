/**
 * Error documents in API Platform 4's shapes (reference-behaviour §4.4): the Hydra `Error`
 * (prefix-aware) or plain problem JSON, and the ConstraintViolation list for 422s. All are
 * served as `application/problem+json`.
 */
import type { HttpError } from './errors.js';

export function errorDocument(error: HttpError, flavour: 'hydra' | 'problem', hydraPrefix: boolean): Record<string, unknown> {
  const type = `/errors/${error.status}`;
  if (flavour === 'problem') return { type, title: 'An error occurred', status: error.status, detail: error.detail };
  const title = hydraPrefix ? 'hydra:title' : 'title';
  const description = hydraPrefix ? 'hydra:description' : 'description';
  return {
    '@context': '/contexts/Error',
    '@id': type,
    '@type': hydraPrefix ? 'hydra:Error' : 'Error',
    [title]: 'An error occurred',
    detail: error.detail,
    status: error.status,
    type,
    [description]: error.detail,
  };
}
