/**
 * `apidsl client FILE.api --out DIR [--name NAME]`: writes the typed TypeScript client package of a file's API
 * (server/client/, docs/client.md) into DIR.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { clientPackage, PACKAGE_NAME } from '../server/client/package.js';
import { loadApi } from '../server/load-api.js';
import { startFailure } from './start-failure.js';

export interface ClientOptions {
  out: string;
  name?: string;
}

export async function runClient(file: string, opts: ClientOptions): Promise<number> {
  if (opts.name !== undefined && !PACKAGE_NAME.test(opts.name)) {
    process.stderr.write(`apidsl client: --name "${opts.name}" is not an npm package name\n`);
    return 2;
  }
  try {
    const files = clientPackage(await loadApi(file), { name: opts.name });
    mkdirSync(opts.out, { recursive: true });
    for (const { path, text } of files) writeFileSync(join(opts.out, path), text);
    process.stdout.write(`apidsl client: wrote ${files.map((f) => f.path).join(', ')} to ${opts.out}\n`);
    return 0;
  } catch (e) {
    return startFailure({ command: 'client', file }, e);
  }
}
