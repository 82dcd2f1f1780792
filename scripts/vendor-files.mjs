// Run by `npm run build` after tsc: copies the browser files listed in server/http/vendored-files.ts from
// node_modules (development dependencies) into dist/vendor/, which the npm package ships; and chevrotain's own
// single-file build into dist/vendor/chevrotain/, which `#chevrotain` (package.json "imports") names. The
// package's entry loads about 700 modules (lodash-es file by file), a third of what every command spends
// starting; its single-file build is the same code in one module (docs/performance.md, "Start-up").
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { VENDORED_FILES, vendorFolder } from '../dist/server/http/vendored-files.js';

const nodeModules = fileURLToPath(new URL('../node_modules/', import.meta.url));
const copies = [
  ...Object.entries(VENDORED_FILES).flatMap(([folder, files]) =>
    files.map(({ from, name }) => ({ from, to: vendorFolder(folder), name })),
  ),
  {
    from: { package: 'chevrotain', path: 'lib/chevrotain.mjs' },
    to: fileURLToPath(new URL('../dist/vendor/chevrotain/', import.meta.url)),
    name: 'chevrotain.mjs',
  },
];
for (const { from, to, name } of copies) {
  mkdirSync(to, { recursive: true });
  copyFileSync(join(nodeModules, from.package, from.path), join(to, name));
}
