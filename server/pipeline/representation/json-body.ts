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
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest(syntaxDetail);
  }
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
