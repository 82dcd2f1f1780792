/** `apidsl check FILE.api|FOLDER… [--format text|json] [--fix]` */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { check, type CheckEnv } from '../grammar/checker/index.js';
import { applyEdits, automaticFixes } from '../grammar/fixes.js';
import { colourWanted, colours } from './colour.js';
import { apiFiles } from './files.js';
import { summary, toJson, toText, type FileDiagnostics } from './report.js';

/** Passes of `--fix`: a fix that had to wait for another one is applied on the next pass. */
const FIX_PASSES = 10;

/** Reads and checks one file; an unreadable file becomes a diagnostic-free failure. */
export function checkFile(
  file: string,
  fix = false,
): (FileDiagnostics & { fixed: number }) | { file: string; error: string } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    return { file, error: (e as Error).message };
  }
  const env: CheckEnv = { baseDir: dirname(resolve(file)) };
  let result = check(text, env);
  let fixed = 0;
  for (let pass = 0; fix && pass < FIX_PASSES; pass++) {
    const fixes = automaticFixes(text, result);
    const next = applyEdits(
      text,
      fixes.flatMap((f) => f.edits),
    );
    if (next === text) break;
    text = next;
    fixed += fixes.length;
    result = check(text, env);
  }
  if (fixed > 0) {
    try {
      writeFileSync(file, text);
    } catch (e) {
      return { file, error: (e as Error).message };
    }
  }
  return { file, text, lines: result.lines, diagnostics: result.all, fixed };
}

export function runCheck(paths: string[], format: 'text' | 'json', fix = false): number {
  const files = apiFiles(paths);
  if (files.length === 0) {
    process.stderr.write(`no .api file in ${paths.join(', ')}\n`);
    return 1;
  }
  const results = files.map((f) => checkFile(f, fix));
  let errors = 0;
  let warnings = 0;
  for (const r of results) {
    if ('error' in r) errors++;
    else {
      errors += r.diagnostics.filter((d) => d.severity === 'error').length;
      warnings += r.diagnostics.filter((d) => d.severity === 'warning').length;
    }
  }
  if (format === 'json') {
    const out = results.flatMap((r) =>
      'error' in r
        ? [
            {
              file: r.file,
              line: 1,
              column: 1,
              endLine: 1,
              endColumn: 1,
              severity: 'error',
              code: 'unreadable-file',
              message: r.error,
            },
          ]
        : toJson(r),
    );
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  } else {
    const colour = colourWanted(process.stdout);
    const c = colours(colour);
    for (const r of results) {
      if ('error' in r) process.stderr.write(`${r.file} - error unreadable-file: ${r.error}\n`);
      else {
        if (r.fixed > 0)
          process.stdout.write(`${c.green('fixed')} ${r.fixed} problem${r.fixed === 1 ? '' : 's'} in ${r.file}\n`);
        if (r.diagnostics.length) process.stdout.write(`${toText(r, colour)}\n`);
      }
    }
    const line = summary(errors, warnings, files.length);
    let paint = c.green;
    if (warnings > 0) paint = c.yellow;
    if (errors > 0) paint = c.red;
    process.stdout.write(`${paint(line)}\n`);
  }
  return errors > 0 ? 1 : 0;
}
