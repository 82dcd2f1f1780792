/** Paths of the repository, from the compiled test files in dist/test/. */
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
export const fromRoot = (path: string): string => fileURLToPath(new URL(`../../../${path}`, import.meta.url));
