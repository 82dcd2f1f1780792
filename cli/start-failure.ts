/**
 * Why a command did not start, told the same way by every command: `apidsl <command>: <why>`, one line on stderr,
 * and exit code 1. A file with errors has its diagnostics printed first; stored data the file does not fit is
 * listed with the way out. Anything else is a bug, thrown with its stack.
 */
import { CheckFailed } from '../server/load-api.js';
import { Refusal } from '../server/refusal.js';
import { UnsafeSchemaChange } from '../server/store/layout.js';
import { MongoConfigError, redactUri } from '../server/store/mongodb/config.js';
import { isPostgresUrl, PostgresConfigError, redactPostgresUrl } from '../server/store/postgres/config.js';
import { LayoutConflictError, StoreUnavailableError } from '../server/store/types.js';
import { printCheckFailure } from './report.js';

/** The command that did not start, on which file, with which store flags (for the way out). */
export interface Start {
  command: string;
  file: string;
  flags?: { data?: string; db?: string };
}

/** Prints why `start` failed and answers exit code 1; throws `e` again when it is no refusal. */
export async function startFailure(start: Start, e: unknown): Promise<number> {
  if (e instanceof CheckFailed) {
    printCheckFailure(start.file, e.result);
    const count = e.result.all.filter((d) => d.severity === 'error').length;
    return refuse(start.command, `${start.file} has ${count} error${count === 1 ? '' : 's'}.`);
  }
  if (e instanceof UnsafeSchemaChange || e instanceof LayoutConflictError) {
    process.stderr.write(
      `apidsl ${start.command}: the stored data does not fit ${start.file}:\n${indent(e.message)}\n`,
    );
    if (start.command !== 'migrate') process.stderr.write(wayOut(start));
    return 1;
  }
  // Our own sentences are told whole; the driver's and the system's messages by their first line.
  if (e instanceof Refusal) return refuse(start.command, e.message);
  if (isSystemError(e)) return refuse(start.command, firstLine(e.message));
  if (e instanceof StoreUnavailableError || e instanceof MongoConfigError || e instanceof PostgresConfigError) {
    // Exits at once: the driver may still wait on a silent host's connection, which would hold the process.
    const line = `apidsl ${start.command}: ${firstLine(e.message)}\n`;
    await new Promise<void>((written) => process.stderr.write(line, () => written()));
    process.exit(1);
  }
  throw e;
}

/** Prints `apidsl <command>: <message>` and answers exit code 1. */
export function refuse(command: string, message: string): number {
  process.stderr.write(`apidsl ${command}: ${message}\n`);
  return 1;
}

const firstLine = (message: string): string => message.split('\n')[0];

/** A file that cannot be read or written, a port taken, a broker that refuses the connection. */
const isSystemError = (e: unknown): e is NodeJS.ErrnoException =>
  typeof (e as NodeJS.ErrnoException)?.code === 'string' && typeof (e as NodeJS.ErrnoException).syscall === 'string';

const indent = (text: string): string => text.replace(/^/gm, '  ');

/** What to do about stored data the file does not fit, with the same store flags. */
function wayOut({ file, flags = {} }: Start): string {
  let given = '';
  if (flags.data) given = ` --data ${flags.data}`;
  else if (flags.db) given = ` --db ${isPostgresUrl(flags.db) ? redactPostgresUrl(flags.db) : redactUri(flags.db)}`;
  return (
    `To list every change with the items it affects: apidsl migrate ${file}${given} --dry-run\n` +
    `To apply those that can be applied (e.g. fill a default): apidsl migrate ${file}${given}\n` +
    'Or serve the file on other data: --data with another directory, --memory, or --db with another database.\n'
  );
}
