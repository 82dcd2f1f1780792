/** Printing diagnostics: `file:line:col - severity CODE: message` with a code frame, or JSON. */
import { readFileSync } from 'node:fs';
import { codeFrameColumns } from '@babel/code-frame';
import type { Diagnostic } from '../grammar/diagnostics.js';
import type { LineIndex } from '../grammar/positions.js';
import { colours } from './colour.js';

export interface FileDiagnostics {
  file: string;
  text: string;
  lines: LineIndex;
  diagnostics: Diagnostic[];
}

/** The JSON form of `apidsl check --format json`: 1-based lines and columns (UTF-16 code units). */
export interface JsonDiagnostic {
  file: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  severity: string;
  code: string;
  message: string;
}

export function toJson(f: FileDiagnostics): JsonDiagnostic[] {
  return f.diagnostics.map((d) => {
    const start = f.lines.position(d.range.start);
    const end = f.lines.position(d.range.end);
    return {
      file: f.file,
      line: start.line + 1,
      column: start.character + 1,
      endLine: end.line + 1,
      endColumn: end.character + 1,
      severity: d.severity,
      code: d.code,
      message: d.message,
    };
  });
}

/** The text report of one file; with `colour`, the severity, code and frame are coloured (the code highlighted). */
export function toText(f: FileDiagnostics, colour = false): string {
  const c = colours(colour);
  return toJson(f)
    .map((j) => {
      // A frame underlines the first line of the range only, so a long range stays readable.
      const endColumn = j.endLine === j.line ? Math.max(j.endColumn, j.column + 1) : j.column + 1;
      const location = { start: { line: j.line, column: j.column }, end: { line: j.line, column: endColumn } };
      const frame = codeFrameColumns(f.text, location, {
        highlightCode: colour,
        forceColor: colour,
        linesAbove: 1,
        linesBelow: 1,
      });
      const severity = j.severity === 'error' ? c.bold(c.red('error')) : c.bold(c.yellow('warning'));
      return `${c.cyan(j.file)}:${c.yellow(String(j.line))}:${c.yellow(String(j.column))} - ${severity} ${c.gray(j.code)}: ${j.message}\n\n${frame}\n`;
    })
    .join('\n');
}

/** Prints to stderr the report of a file whose check failed (what a command shows before it refuses the file). */
export function printCheckFailure(file: string, result: { lines: LineIndex; all: Diagnostic[] }): void {
  const text = readFileSync(file, 'utf8');
  process.stderr.write(`${toText({ file, text, lines: result.lines, diagnostics: result.all })}\n`);
}

export function summary(errors: number, warnings: number, files: number): string {
  const n = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;
  return `Found ${n(errors, 'error')} and ${n(warnings, 'warning')} in ${n(files, 'file')}.`;
}
