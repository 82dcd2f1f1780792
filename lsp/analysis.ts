/**
 * The analysis of one version of a document: the checker's result (AST, model, diagnostics)
 * for exactly that text, and how long it took. Computed on demand and cached by version, so
 * diagnostics, completion, hover and the rest share one parse per change. Given the analysis
 * of the previous version, only the top-level declarations the edit touched are parsed again
 * (grammar/reparse.ts; the result is the same as a full parse).
 */
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { parse, type ParseResult } from '../grammar/parse.js';
import { checkParsed, type CheckResult } from '../grammar/checker/index.js';
import { reparse } from '../grammar/reparse.js';

export interface Analysis {
  uri: string;
  /** The document version analysed (the LSP document object itself moves on with edits). */
  version: number;
  result: CheckResult;
  /** Parse + check time in milliseconds. */
  millis: number;
}

/** Code references are resolved against the file's folder when the document is a file. */
function baseDirOf(uri: string): string | undefined {
  if (!uri.startsWith('file:')) return undefined;
  try {
    return dirname(fileURLToPath(uri));
  } catch {
    return undefined;
  }
}

export function analyse(doc: TextDocument, previous?: ParseResult): Analysis {
  const started = performance.now();
  const baseDir = baseDirOf(doc.uri);
  const text = doc.getText();
  const parsed = (previous && reparse(previous, text)) || parse(text);
  const result = checkParsed(parsed, baseDir === undefined ? {} : { baseDir, fileExists: existsSync });
  return { uri: doc.uri, version: doc.version, result, millis: performance.now() - started };
}
