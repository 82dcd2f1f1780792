/**
 * JSON request bodies, parsed only when they nest at most MAX_JSON_DEPTH arrays and objects deep: the
 * stages after parsing (denormalization, merge-patch, cloning, serialization) recurse through values,
 * and a body nested thousands deep would exhaust the stack there. The depth is counted by one linear
 * scan of the text, before JSON.parse builds anything.
 */
import { badRequest } from '../../protocol/errors.js';

export const MAX_JSON_DEPTH = 128;

/** The parsed body; 400 with `syntaxDetail` when it is not JSON, 400 when it nests too deeply. */
export function parseJsonBody(text: string, syntaxDetail: string): unknown {
  if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) {
    throw badRequest(`The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep.`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest(syntaxDetail);
  }
  refuseLoneSurrogates(text, value);
  return value;
}

const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
/** In a `u` pattern a pair is one code point: only a lone surrogate is of category Cs. */
const LONE_SURROGATE = /\p{Cs}/u;
const isWellFormed = (text: string): boolean => !LONE_SURROGATE.test(text);

/**
 * 400 when a parsed JSON body holds a lone UTF-16 surrogate, in a string or a key: JSON's `\uD83D` escape can
 * write one, though it is no Unicode text (RFC 8259 §8.2); stored, it would be kept as sent by one store and
 * replaced by U+FFFD by another. The body's bytes were strict UTF-8 already (http/request-body.ts), so only an
 * escape can bring one: bodies without such an escape are not walked.
 */
export function refuseLoneSurrogates(text: string, value: unknown): void {
  if (SURROGATE_ESCAPE.test(text) && !wellFormed(value))
    throw badRequest('The JSON body holds a lone UTF-16 surrogate (a \\uD800-\\uDFFF escape out of a pair).');
}

function wellFormed(value: unknown): boolean {
  if (typeof value === 'string') return isWellFormed(value);
  if (Array.isArray(value)) return value.every(wellFormed);
  if (typeof value === 'object' && value !== null)
    return Object.entries(value).every(([key, v]) => isWellFormed(key) && wellFormed(v));
  return true;
}

/** Whether brackets outside strings open more than `max` levels (malformed text is JSON.parse's to refuse). */
export function jsonDepthExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}
