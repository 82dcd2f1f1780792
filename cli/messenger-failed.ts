/**
 * `apidsl messenger failed FILE.api [show [ID] | retry [ID…] | remove ID…] [--data DIR | --db URI]`: the messages
 * of the failure queues (Symfony's `messenger:failed:show|retry|remove`), on every asynchronous transport the
 * file uses. `retry` sends messages back to their transport's queue, where a consumer handles them again.
 */
import pino from 'pino';
import { startBackgroundRuntime } from '../server/background-runtime.js';
import type { Envelope, FailureQueue, Selection } from '../server/messenger/index.js';
import { loadApi } from '../server/load-api.js';
import { refuse, startFailure } from './start-failure.js';
import { storageFor, type StoreFlags } from './store-flags.js';

export type FailedAction = 'show' | 'retry' | 'remove';

interface Listed {
  transport: string;
  envelope: Envelope;
}

export async function runMessengerFailed(
  file: string,
  action: FailedAction,
  ids: string[],
  opts: StoreFlags,
): Promise<number> {
  const command = 'messenger failed';
  if (opts.memory) return refuse(command, '--memory holds no queue between commands; use --data or --db.');
  if (action === 'remove' && ids.length === 0)
    return refuse(command, `remove needs the id of a message (apidsl ${command} FILE show).`);
  const storage = storageFor(command, file, opts);
  if (!storage) return 1;
  let background;
  try {
    const api = await loadApi(file);
    // Broker warnings (a refused connection) reach the user as the error below, not as log lines.
    background = await startBackgroundRuntime(api, storage, pino({ level: 'error' }, pino.destination(2)));
  } catch (e) {
    return startFailure({ command, file, flags: opts }, e);
  }
  try {
    const queues = background.runtime.bus.failureQueues();
    if (queues.length === 0) {
      process.stderr.write(
        `apidsl ${command}: ${file} sends every message through the sync transport: no failure queue.\n`,
      );
      return 1;
    }
    if (action === 'show') return await show(queues, ids[0]);
    return await act(queues, action, ids);
  } catch (e) {
    process.stderr.write(`apidsl ${command}: ${(e as Error).message}\n`);
    return 1;
  } finally {
    await background.close();
  }
}

type Queues = { transport: string; failures: FailureQueue }[];

async function show(queues: Queues, id: string | undefined): Promise<number> {
  const listed: Listed[] = [];
  for (const { transport, failures } of queues)
    for (const envelope of await failures.list()) listed.push({ transport, envelope });
  if (id !== undefined) {
    const one = listed.find((l) => l.envelope.id === id);
    if (!one) return missing([id]);
    process.stdout.write(`${JSON.stringify({ transport: one.transport, ...one.envelope }, null, 2)}\n`);
    return 0;
  }
  if (listed.length === 0) {
    process.stdout.write('No failed messages.\n');
    return 0;
  }
  process.stdout.write(`${table(listed)}\n${listed.length} failed message${listed.length === 1 ? '' : 's'}.\n`);
  return 0;
}

async function act(queues: Queues, action: 'retry' | 'remove', ids: string[]): Promise<number> {
  const selection: Selection = ids.length === 0 ? 'all' : new Set(ids);
  const done: string[] = [];
  for (const { failures } of queues) done.push(...(await failures[action](selection)));
  const verb = action === 'retry' ? 'sent back to its queue' : 'removed';
  for (const id of done) process.stdout.write(`${id}: ${verb}\n`);
  if (ids.length === 0 && done.length === 0) process.stdout.write('No failed messages.\n');
  return missing(ids.filter((id) => !done.includes(id)));
}

function missing(ids: string[]): number {
  for (const id of ids) process.stderr.write(`apidsl messenger failed: no failed message with id ${id}\n`);
  return ids.length > 0 ? 1 : 0;
}

/** One line per message: id, transport, class, operation, when it failed, its error. */
function table(listed: Listed[]): string {
  const header = ['ID', 'TRANSPORT', 'CLASS', 'OPERATION', 'FAILED AT', 'ERROR'];
  const rows = listed.map(({ transport, envelope: e }) => [
    e.id,
    transport,
    e.class,
    e.headers.operation ?? '',
    e.headers.failure?.at ?? '',
    (e.headers.failure?.error ?? '').replace(/\s+/g, ' '),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  return [header, ...rows]
    .map((row) =>
      row
        .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i])))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
