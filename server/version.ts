/** The apidsl package's version (package.json): `--version`, the language server, rendering versions. */
import { readFileSync } from 'node:fs';
import { packageFile } from './package-folder.js';

export const PACKAGE_VERSION = (JSON.parse(readFileSync(packageFile('package.json'), 'utf8')) as { version: string })
  .version;
