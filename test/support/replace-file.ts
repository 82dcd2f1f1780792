/**
 * Writes a file as many editors save one: whole into a temporary file beside it, then renamed over it, so that a
 * reader never sees it half written.
 */
import { renameSync, writeFileSync } from 'node:fs';

export function replaceFile(file: string, text: string): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, file);
}
