/** What a command that reads one .api file prints when it fails (`openapi`, `graphql`, `routes`). */
import { CheckFailed } from '../server/serve.js';
import { printCheckFailure } from './report.js';

/** The file's diagnostics when its check failed, else the error's message after the command's name; exit code 1. */
export function reportFailure(command: string, file: string, e: unknown): number {
  if (e instanceof CheckFailed) printCheckFailure(file, e.result);
  else process.stderr.write(`apidsl ${command}: ${(e as Error).message}\n`);
  return 1;
}
