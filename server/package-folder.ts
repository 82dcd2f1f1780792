/**
 * The folder apidsl is installed in (the repository's root in a checkout): where package.json, dist/ and cli/starter/
 * are. Found by walking up from this module's file to the first package.json, because the command runs from the
 * bundle (dist/bundle/, scripts/bundle-cli.mjs) while tests load the compiled modules (dist/server/...), at other
 * depths.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let folder: string | undefined;

/** A path inside the package: `packageFile('dist', 'admin')`. */
export function packageFile(...parts: string[]): string {
  folder ??= packageFolder(dirname(fileURLToPath(import.meta.url)));
  return join(folder, ...parts);
}

function packageFolder(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`apidsl's package.json is not in ${from} or any folder above it`);
  }
}
