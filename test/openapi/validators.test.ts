/**
 * Every OpenAPI document we generate — for each example and each test fixture that
 * loads, in 3.2 and in 3.1 — is valid for two independent validators (see validators.ts).
 */
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect } from 'chai';
import { openApiDocument, SPEC_VERSIONS } from '../../server/openapi/index.js';
import type { ApiMetadata } from '../../server/metadata/types.js';
import { loadApi } from '../../server/load-api.js';
import { fromRoot, repoRoot } from '../support/paths.js';
import { hyperjump, seriousme } from './validators.js';

function apiFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'broken' ? [] : apiFiles(path);
    return name.endsWith('.api') ? [path] : [];
  });
}

const FILES = [...apiFiles(fromRoot('examples')), ...apiFiles(fromRoot('test/fixtures'))];

describe('OpenAPI documents: valid for independent validators', function () {
  // Each validator reads every document of every example and fixture (about 60 of each version): 20–30 s on a
  // loaded 2-vCPU machine, over mocha's default of 20 s.
  this.timeout(180_000);
  const loaded = new Map<string, ApiMetadata>();
  before(async () => {
    for (const file of FILES) {
      try {
        loaded.set(file, await loadApi(file));
      } catch {
        // Files that must be refused (missing custom code…) have no document.
      }
    }
  });

  it('covers the examples and most fixtures', () => {
    expect(loaded.size).to.be.greaterThan(20);
    for (const example of ['bookstore.api', 'catalogue.api', 'event-log.api', 'library-mutators.api', 'places.api']) {
      expect(
        [...loaded.keys()].map((f) => relative(repoRoot, f)),
        example,
      ).to.include(`examples/${example}`);
    }
  });

  for (const version of SPEC_VERSIONS) {
    it(`OpenAPI ${version}: @seriousme/openapi-schema-validator accepts every document`, async () => {
      for (const [file, api] of loaded) {
        const verdict = await seriousme(openApiDocument(api, { specVersion: version }));
        expect(verdict.valid, `${relative(repoRoot, file)}: ${verdict.errors}`).to.equal(true);
        expect(verdict.version).to.equal(version);
      }
    });

    it(`OpenAPI ${version}: @hyperjump/json-schema (schema-base, Schema Objects included) accepts every document`, async () => {
      for (const [file, api] of loaded) {
        const verdict = await hyperjump(openApiDocument(api, { specVersion: version }));
        expect(verdict.valid, `${relative(repoRoot, file)}: ${verdict.errors}`).to.equal(true);
      }
    });
  }

  it('the validators do reject invalid documents (they are not vacuous)', async () => {
    const api = [...loaded.values()][0];
    const doc32 = openApiDocument(api, { specVersion: '3.2' }) as { paths: Record<string, Record<string, unknown>> };
    const broken32 = structuredClone(doc32);
    const firstPath = Object.keys(broken32.paths)[0];
    (broken32.paths[firstPath] as Record<string, unknown>).get = { responses: 'none' };
    expect((await seriousme(broken32)).valid).to.equal(false);
    expect((await hyperjump(broken32)).valid).to.equal(false);
    // A QUERY under `query` is valid in 3.2 only.
    const doc31 = openApiDocument(api, { specVersion: '3.1' }) as { paths: Record<string, Record<string, unknown>> };
    doc31.paths[firstPath].query = { responses: { 200: { description: 'ok' } } };
    expect((await seriousme(doc31)).valid).to.equal(false);
    expect((await hyperjump(doc31)).valid).to.equal(false);
    // A Schema Object of a wrong shape: only a validator that checks Schema Objects sees it.
    const badSchema = structuredClone(doc32) as unknown as { components: { schemas: Record<string, unknown> } };
    badSchema.components.schemas.Broken = { type: 'strin' };
    expect((await hyperjump(badSchema)).valid).to.equal(false);
  });
});
