/** `apidsl openapi FILE [--spec-version 3.1|3.2] [--out FILE]`, run as a user would. */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';
import { openApiDocument } from '../../server/openapi/index.js';
import { loadApi } from '../../server/load-api.js';
import { runCli } from '../support/cli.js';
import { fromRoot } from '../support/paths.js';

const BOOKSTORE = fromRoot('examples/bookstore.api');

describe('apidsl openapi', () => {
  const dir = mkdtempSync(join(tmpdir(), 'apidsl-openapi-'));

  it('prints the OpenAPI 3.2 document as JSON by default', async () => {
    const r = runCli(['openapi', BOOKSTORE]);
    expect(r.status, r.stderr).to.equal(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.openapi).to.equal('3.2.0');
    expect(doc).to.deep.equal(JSON.parse(JSON.stringify(openApiDocument(await loadApi(BOOKSTORE)))));
    expect(doc.paths['/books']).to.have.property('query');
  });

  it('--spec-version 3.1 prints the 3.1 document, without QUERY', () => {
    const r = runCli(['openapi', BOOKSTORE, '--spec-version', '3.1']);
    expect(r.status, r.stderr).to.equal(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.openapi).to.equal('3.1.1');
    expect(doc.paths['/books']).to.not.have.property('query');
    expect(doc['x-apidsl-omitted'][0]).to.include({ method: 'QUERY', path: '/books' });
  });

  it('--out FILE.json writes JSON, --out FILE.yaml writes the same document in YAML', () => {
    const json = join(dir, 'bookstore.json');
    const yaml = join(dir, 'bookstore.yaml');
    expect(runCli(['openapi', BOOKSTORE, '--out', json]).status).to.equal(0);
    const r = runCli(['openapi', BOOKSTORE, '--spec-version', '3.2', '--out', yaml]);
    expect(r.status, r.stderr).to.equal(0);
    expect(r.stdout).to.equal('');
    const yamlText = readFileSync(yaml, 'utf8');
    expect(yamlText).to.match(/^openapi: 3\.2\.0$/m);
    expect(() => JSON.parse(yamlText)).to.throw();
    expect(parse(yamlText)).to.deep.equal(JSON.parse(readFileSync(json, 'utf8')));
  });

  it('refuses an unknown version', () => {
    const r = runCli(['openapi', BOOKSTORE, '--spec-version', '3.0']);
    expect(r.status).to.not.equal(0);
    expect(r.stderr).to.include('3.0');
  });

  it('prints the diagnostics of a file with errors (exit 1)', () => {
    const r = runCli(['openapi', fromRoot('test/fixtures/broken/unknown-type.api')]);
    expect(r.status).to.equal(1);
    expect(r.stdout).to.equal('');
    expect(r.stderr).to.match(/error/i);
  });

  it('is listed in the help', () => {
    expect(runCli(['--help']).stdout).to.match(/openapi \[options\] <file>/);
  });
});
