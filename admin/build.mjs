// Builds the admin into a folder the server serves (default ../dist/admin/, or the folder given as the first
// argument): the bundle and its stylesheet with a hash of their content in their names, each also gzipped and
// brotli-compressed, and manifest.json naming them, which the server reads (server/http/admin-page.ts).
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const here = fileURLToPath(new URL('.', import.meta.url));
const out = resolve(here, process.argv[2] ?? '../dist/admin');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

const result = await build({
  entryPoints: [resolve(here, 'src/main.jsx')],
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
  jsx: 'automatic',
  define: { 'process.env.NODE_ENV': '"production"' },
  legalComments: 'linked',
  outdir: out,
  entryNames: '[name].[hash]',
  metafile: true,
  logLevel: 'info',
});

const files = Object.keys(result.metafile.outputs).map((path) => resolve(process.cwd(), path));
for (const file of files) {
  const body = readFileSync(file);
  writeFileSync(`${file}.gz`, gzipSync(body, { level: 9 }));
  writeFileSync(
    `${file}.br`,
    brotliCompressSync(body, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
    }),
  );
}
const names = files.map((f) => basename(f));
const manifest = {
  script: names.find((n) => n.endsWith('.js')),
  styles: names.filter((n) => n.endsWith('.css')),
  files: names,
};
writeFileSync(resolve(out, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
