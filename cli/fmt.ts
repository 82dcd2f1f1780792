/** `apidsl fmt FILE.api|FOLDER… [--check]` */
import { readFileSync, writeFileSync } from 'node:fs';
import { format } from '../grammar/format.js';
import { apiFiles } from './files.js';

export function runFmt(paths: string[], checkOnly: boolean): number {
  const files = apiFiles(paths);
  if (files.length === 0) {
    process.stderr.write(`no .api file in ${paths.join(', ')}\n`);
    return 1;
  }
  let status = 0;
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      process.stderr.write(`${file} - error unreadable-file: ${(e as Error).message}\n`);
      status = 1;
      continue;
    }
    const result = format(text);
    if (!result.ok) {
      process.stderr.write(`${file} - not formatted: ${result.reason}\n`);
      status = 1;
    } else if (result.text !== text) {
      if (checkOnly) {
        process.stdout.write(`${file}\n`);
        status = 1;
      } else {
        writeFileSync(file, result.text);
        process.stdout.write(`formatted ${file}\n`);
      }
    }
  }
  return status;
}
