// Bundles the client and the language server (with the apidsl front end) into dist/.
import { build } from 'esbuild';

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: true,
  minify: process.argv.includes('--minify'),
  logLevel: 'info',
};

await Promise.all([
  build({ ...common, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js', external: ['vscode'] }),
  build({ ...common, entryPoints: ['src/server.ts'], outfile: 'dist/server.js' }),
]);
