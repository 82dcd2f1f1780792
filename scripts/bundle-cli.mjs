// Run by `npm run build` after tsc: bundles the command (dist/cli/main.js and dist/cli/signals.js, which
// bin/apidsl.js loads) with the packages it imports into dist/bundle/, split where the command loads a module on
// demand (a subcommand, a driver, ioredis, jose...), so each stays loaded on demand. A start then reads a few dozen
// files instead of some 750: one `serve` of the bookstore costs about 40 % less CPU (docs/performance.md, "Starting").
// better-sqlite3 stays outside (a native addon, found from node_modules at run time); `require` is made for the
// CommonJS packages inside, so a `require` they do at run time resolves from dist/bundle/ as it would from
// node_modules. The modules of dist/ stay as tsc wrote them: tests import them, and the bundle is made of them.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const outdir = `${dist}bundle`;
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: [`${dist}cli/main.js`, `${dist}cli/signals.js`],
  outbase: dist,
  outdir,
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Names as written: error classes and functions keep theirs where code or messages read them.
  keepNames: true,
  external: ['better-sqlite3'],
  banner: {
    js: "import { createRequire as __apidslRequire } from 'node:module';\nconst require = __apidslRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
