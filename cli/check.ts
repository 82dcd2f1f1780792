/** `apidsl check FILE.api… [--format text|json]` */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { check } from '../grammar/checker/index.js';
import { summary, toJson, toText, type FileDiagnostics } from './report.js';

/** Reads and checks one file; an unreadable file becomes a diagnostic-free failure. */
export function checkFile(file: string): FileDiagnostics | { file: string; error: string } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    return { file, error: (e as Error).message };
  }
  const result = check(text, { baseDir: dirname(resolve(file)) });
  return { file, text, lines: result.lines, diagnostics: result.all };
}

export function runCheck(files: string[], format: 'text' | 'json'): number {
  const results = files.map(checkFile);
  let errors = 0;
  let warnings = 0;
  for (const r of results) {
    if ('error' in r) errors++;
    else for (const d of r.diagnostics) d.severity === 'error' ? errors++ : d.severity === 'warning' ? warnings++ : undefined;
  }
  if (format === 'json') {
    const out = results.flatMap((r) =>
      'error' in r ? [{ file: r.file, line: 1, column: 1, endLine: 1, endColumn: 1, severity: 'error', code: 'unreadable-file', message: r.error }] : toJson(r),
    );
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  } else {
    for (const r of results) {
      if ('error' in r) process.stderr.write(`${r.file} - error unreadable-file: ${r.error}\n`);
      else if (r.diagnostics.length) process.stdout.write(`${toText(r)}\n`);
    }
    process.stdout.write(`${summary(errors, warnings, files.length)}\n`);
  }
  return errors > 0 ? 1 : 0;
}
