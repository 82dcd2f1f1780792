/**
 * The test files of the HTTP suite that never use the suite's store. `APIDSL_TEST_STORE=mongodb|postgres` runs the
 * suite against that store (harness.ts gives every server started without a storage of its own a fresh database);
 * the files listed in store-independent.json start each server on a store they name themselves (`--data DIR`, a
 * `--db` of their own, one run per engine) or none through the harness, so a store's run would repeat them exactly:
 * CI's store runs leave them out (store-suite.mocharc.cjs). The list is checked both ways: a listed file that starts a
 * server on the suite's store fails at that start, in every run (`refuseListedCaller`), and
 * test/http/store-independent.test.ts fails on a listed file that reads APIDSL_TEST_STORE or no longer exists.
 */
import { readFileSync } from 'node:fs';
import { fromRoot } from '../support/paths.js';

/** The listed files, by name without `.test.ts`. */
export const STORE_INDEPENDENT: readonly string[] = JSON.parse(
  readFileSync(fromRoot('test/http/store-independent.json'), 'utf8'),
) as string[];

const TEST_FILE = /\/test\/http\/([\w.-]+)\.test\.js/;

/**
 * The HTTP test file a call comes from: the first one on the stack (V8 keeps the awaiting async callers there, so a
 * test that awaited something before starting its server is still found); undefined when none is.
 */
export function callingTestFile(): string | undefined {
  return TEST_FILE.exec(new Error().stack ?? '')?.[1];
}

/** Throws when a file listed as store-independent starts a server on the suite's store. */
export function refuseListedCaller(file: string | undefined): void {
  if (file === undefined || !STORE_INDEPENDENT.includes(file)) return;
  throw new Error(
    `test/http/${file}.test.ts starts a server on the suite's store (no --data or --db of its own), so the store runs` +
      ' must not leave it out: remove it from test/http/store-independent.json',
  );
}
