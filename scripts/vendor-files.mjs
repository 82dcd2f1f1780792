// Run by `npm run build` after tsc: copies the browser files listed in server/http/vendored-files.ts from
// node_modules (development dependencies) into dist/vendor/, which the npm package ships.
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { VENDORED_FILES, vendorFolder } from '../dist/server/http/vendored-files.js';

const nodeModules = fileURLToPath(new URL('../node_modules/', import.meta.url));
for (const [folder, files] of Object.entries(VENDORED_FILES)) {
  const target = vendorFolder(folder);
  mkdirSync(target, { recursive: true });
  for (const { from, name } of files) copyFileSync(join(nodeModules, from.package, from.path), join(target, name));
}
