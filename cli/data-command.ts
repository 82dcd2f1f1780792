/**
 * What `import`, `export` and `reset` share: the file loaded (diagnostics printed when it has errors), the
 * store chosen by the same flags as `serve` (--memory refused: its data would vanish with the command), a
 * resource found by name (collections open through server/pipeline/open-runtime.ts, as the server opens them).
 */
import type { ApiMetadata, ResourceMetadata } from '../server/metadata/types.js';
import { loadApi } from '../server/load-api.js';
import { Refusal } from '../server/refusal.js';
import { openStore, type Storage } from '../server/storage.js';
import type { Store } from '../server/store/types.js';
import { closest } from '../grammar/suggest.js';
import { startFailure, type Start } from './start-failure.js';
import { storageOf, type StoreFlags } from './store-flags.js';

/** A command's refusal: printed as `apidsl <command>: <message>`, exit code 1. */
export class CommandError extends Refusal {}

export interface Opened {
  api: ApiMetadata;
  storage: Storage;
  store: Store;
}

/** Loads the file and opens its store; throws CommandError, or why the file or the store cannot be used. */
export async function openApiStore(file: string, flags: StoreFlags, why: string): Promise<Opened> {
  if (flags.memory)
    throw new CommandError(`--memory ${why}; use the embedded store (default, or --data DIR) or --db URI.`);
  const storage = storageOf(file, flags);
  if (typeof storage === 'string') throw new CommandError(storage);
  const api = await loadApi(file);
  return { api, storage, store: await openStore(storage) };
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

/** Runs a command body: a CommandError, or any other refusal (cli/start-failure.ts), is told in one line, exit code 1. */
export async function runCommand(start: Start, body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (e) {
    return startFailure(start, e);
  }
}
