/**
 * What `import`, `export` and `reset` share: the file loaded (diagnostics printed when it has errors), the
 * store chosen by the same flags as `serve` (--memory refused: its data would vanish with the command), a
 * resource found by name (collections open through server/pipeline/runtime.ts, as the server opens them).
 */
import type { ApiMetadata, ResourceMetadata } from '../server/metadata/types.js';
import { CheckFailed, loadApi, openStore, type Storage } from '../server/serve.js';
import type { Store } from '../server/store/types.js';
import { closest } from '../grammar/suggest.js';
import { printCheckFailure } from './report.js';
import { storageOf, type StoreFlags } from './store-flags.js';

/** A command's refusal: printed as `apidsl <command>: <message>`, exit code 1. */
export class CommandError extends Error {}

export interface Opened {
  api: ApiMetadata;
  storage: Storage;
  store: Store;
}

/** Loads the file and opens its store; throws CommandError (diagnostics already printed for a file with errors). */
export async function openApiStore(file: string, flags: StoreFlags, why: string): Promise<Opened> {
  if (flags.memory)
    throw new CommandError(`--memory ${why}; use the embedded store (default, or --data DIR) or --db URI.`);
  const storage = storageOf(file, flags);
  if (typeof storage === 'string') throw new CommandError(storage);
  let api: ApiMetadata;
  try {
    api = await loadApi(file);
  } catch (e) {
    if (e instanceof CheckFailed) {
      printCheckFailure(file, e.result);
      throw new CommandError(`${file} has errors.`);
    }
    throw new CommandError((e as Error).message);
  }
  try {
    return { api, storage, store: await openStore(storage) };
  } catch (e) {
    throw new CommandError((e as Error).message.split('\n')[0]);
  }
}

/** The resource named `name` (its short name, any case), or a CommandError naming the closest one. */
export function findResource(api: ApiMetadata, name: string): ResourceMetadata {
  const resource =
    api.resources.find((r) => r.shortName === name) ??
    api.resources.find((r) => r.shortName.toLowerCase() === name.toLowerCase());
  if (resource) return resource;
  const names = api.resources.map((r) => r.shortName);
  const near = closest(name, names);
  throw new CommandError(
    `no resource named ${name}${near ? `; did you mean ${near}?` : ''} (resources: ${names.join(', ') || 'none'})`,
  );
}

/** Runs a command body: a CommandError becomes its message on stderr and exit code 1. */
export async function runCommand(command: string, body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (e) {
    if (!(e instanceof CommandError)) throw e;
    process.stderr.write(`apidsl ${command}: ${e.message}\n`);
    return 1;
  }
}
