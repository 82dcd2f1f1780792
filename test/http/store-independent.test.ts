/**
 * The list of HTTP test files the store runs leave out (test/http/suite-store.ts): each names a file that exists and
 * chooses its stores without looking at the run (no APIDSL_TEST_STORE in it nor in the test modules it imports), and a
 * listed file that starts a server on the suite's store is refused at that start.
 */
import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fromRoot } from '../support/paths.js';
import { callingTestFile, refuseListedCaller, STORE_INDEPENDENT } from './suite-store.js';

/** Reading the run's store (a message naming the variable is no reading). */
const READS_RUN_STORE = /env\.APIDSL_TEST_STORE|env\[['"]APIDSL_TEST_STORE/;

/** Modules that read APIDSL_TEST_STORE to give the suite's store, which the start check covers. */
const SUITE_STORE_MODULES = new Set(['test/http/harness.ts', 'test/http/suite-store.ts']);

/** A test source and the test modules it imports (relative imports under test/), transitively. */
function withImports(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file) || SUITE_STORE_MODULES.has(file)) return seen;
  seen.add(file);
  const source = readFileSync(fromRoot(file), 'utf8');
  for (const [, path] of source.matchAll(/from '(\.[^']+)\.js'/g)) {
    const imported = relative(fromRoot('.'), join(dirname(fromRoot(file)), `${path}.ts`));
    if (imported.startsWith('test/') && existsSync(fromRoot(imported))) withImports(imported, seen);
  }
  return seen;
}

describe('HTTP suite: the files the store runs leave out', () => {
  it('lists files that exist and that choose their stores without reading APIDSL_TEST_STORE', () => {
    expect(STORE_INDEPENDENT).to.not.be.empty;
    for (const name of STORE_INDEPENDENT) {
      const file = `test/http/${name}.test.ts`;
      expect(existsSync(fromRoot(file)), file).to.equal(true);
      for (const module of withImports(file))
        expect(readFileSync(fromRoot(module), 'utf8'), `${module} (through ${file})`).to.not.match(READS_RUN_STORE);
    }
  });

  it('refuses a server start on the suite store from a listed file, naming the list; others start', () => {
    expect(() => refuseListedCaller(STORE_INDEPENDENT[0])).to.throw(/store-independent\.json/);
    expect(() => refuseListedCaller('store-independent')).to.not.throw();
    expect(() => refuseListedCaller(undefined)).to.not.throw();
  });

  it('finds the test file a start comes from on the stack, across awaits', async () => {
    expect(callingTestFile()).to.equal('store-independent');
    await new Promise((resolve) => setTimeout(resolve, 1));
    expect(await (async () => callingTestFile())()).to.equal('store-independent');
  });
});
