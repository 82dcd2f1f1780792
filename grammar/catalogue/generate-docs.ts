/**
 * `npm run docs`: writes docs/options.md from the catalogue. Compiled to
 * dist/grammar/catalogue/generate-docs.js, so the repository root is three levels up.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderOptionsReference } from './docs.js';

const target = new URL('../../../docs/options.md', import.meta.url);
mkdirSync(new URL('.', target), { recursive: true });
writeFileSync(target, renderOptionsReference());
console.log(`wrote ${fileURLToPath(target)}`);
