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
  if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) throw tooDeep();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest(syntaxDetail);
  }
  refuseLoneSurrogates(text, value);
  return value;
}

const LONE_SURROGATE_DETAIL = 'The JSON body holds a lone UTF-16 surrogate (a \\uD800-\\uDFFF escape out of a pair).';
const tooDeep = () => badRequest(`The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep.`);

/**
 * A body an adapter hands as a value (GraphQL's input, MCP's arguments), checked as a parsed text is (depth, lone
 * surrogates) and copied as JSON would copy it, so that the pipeline may change it without touching what the
 * adapter holds (one GraphQL request may pass the same variable to several mutations). The recursion stops at
 * MAX_JSON_DEPTH, so the stack stays bounded.
 */
export function checkedJsonValue(value: unknown): unknown {
  return jsonCopy(value, 0);
}

function jsonCopy(value: unknown, depth: number): unknown {
  if (typeof value === 'string') {
    if (!isWellFormed(value)) throw badRequest(LONE_SURROGATE_DETAIL);
    return value;
  }
  if (typeof value === 'number') return Number.isFinite(value) ? value + 0 : null; // JSON has no -0 and no NaN
  if (typeof value !== 'object' || value === null) return value;
  const json = value as { toJSON?: () => unknown };
  if (typeof json.toJSON === 'function') return jsonCopy(json.toJSON(), depth);
  if (depth === MAX_JSON_DEPTH) throw tooDeep();
  if (Array.isArray(value)) return value.map((v) => jsonCopy(v ?? null, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (v === undefined || typeof v === 'function') continue;
    if (!isWellFormed(key)) throw badRequest(LONE_SURROGATE_DETAIL);
    // A key "__proto__" is an own property, as JSON.parse makes it, never the copy's prototype.
    Object.defineProperty(copy, key, {
      value: jsonCopy(v, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy;
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
  if (SURROGATE_ESCAPE.test(text) && !wellFormed(value)) throw badRequest(LONE_SURROGATE_DETAIL);
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
