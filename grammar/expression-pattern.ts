/**
 * The pattern of a `matches` operator: a PCRE literal with delimiters and flags (`'/^ROLE_[A-Z]+$/i'`),
 * compiled once into an RE2 program (re2js). RE2 matches in time linear in the subject, so no pattern
 * can make a request hang (no catastrophic backtracking); back-references and look-arounds, which
 * need backtracking, are refused with a clear message.
 */
import { RE2JS } from 're2js';

export interface Pattern {
  test(subject: string): boolean;
}

export type CompiledPattern = { ok: true; pattern: Pattern } | { ok: false; message: string };

const CLOSING: Record<string, string> = { '(': ')', '[': ']', '{': '}', '<': '>' };
const FLAGS: Record<string, number> = { i: RE2JS.CASE_INSENSITIVE, m: RE2JS.MULTILINE, s: RE2JS.DOTALL, u: 0 };

export function compilePattern(literal: string): CompiledPattern {
  const delimiter = literal[0];
  if (delimiter === undefined || /[A-Za-z0-9\\\s]/.test(delimiter)) {
    return {
      ok: false,
      message: `'${literal}' is not a delimited pattern: write it as '/…/' with optional flags (i, m, s, u)`,
    };
  }
  const closing = CLOSING[delimiter] ?? delimiter;
  const end = literal.lastIndexOf(closing);
  if (end <= 0) return { ok: false, message: `pattern '${literal}' has no closing delimiter '${closing}'` };
  const body = literal.slice(1, end);
  let flags = 0;
  for (const f of literal.slice(end + 1)) {
    if (!(f in FLAGS)) return { ok: false, message: `pattern flag '${f}' is not supported (use i, m, s or u)` };
    flags |= FLAGS[f];
  }
  try {
    const re = RE2JS.compile(body, flags);
    return { ok: true, pattern: { test: (subject) => re.matcher(subject).find() } };
  } catch (e) {
    return { ok: false, message: `pattern '${literal}' is not valid: ${(e as Error).message}` };
  }
}
