/** The `.api` files under a folder (its `broken/` fixtures left out), and the APIs among them that load. */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { loadApi } from '../../server/load-api.js';
import type { ApiMetadata } from '../../server/metadata/types.js';

export function apiFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'broken' || name === 'node_modules' ? [] : apiFiles(path);
    return name.endsWith('.api') ? [path] : [];
  });
}

/** Each file's loaded API, in order; a file made to fail loading is passed over (its own test says how). */
export async function* loadableApis(files: readonly string[]): AsyncGenerator<{ file: string; api: ApiMetadata }> {
  for (const file of files) {
    let api: ApiMetadata;
    try {
      api = await loadApi(file);
    } catch {
      continue;
    }
    yield { file, api };
  }
}
