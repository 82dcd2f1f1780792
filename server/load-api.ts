/**
 * Loading a `.api` file as every command does: check it, then load its metadata (custom code and mutators
 * included). Nothing here opens a store or serves: `openapi`, `routes` and `graphql` load only this.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { check, type CheckResult } from '../grammar/checker/index.js';
import { loadMetadata } from './metadata/load.js';
import type { ApiMetadata } from './metadata/types.js';

/** The file has errors: its diagnostics are in `result`. */
export class CheckFailed extends Error {
  constructor(readonly result: CheckResult) {
    super('the file has errors');
  }
}

export async function loadApi(file: string): Promise<ApiMetadata> {
  const text = readFileSync(file, 'utf8');
  const baseDir = dirname(resolve(file));
  const result = check(text, { baseDir });
  if (result.all.some((d) => d.severity === 'error')) throw new CheckFailed(result);
  return loadMetadata(result.model, { baseDir });
}
