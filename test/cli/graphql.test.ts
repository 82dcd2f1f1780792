/** `apidsl graphql FILE [--out FILE]`, run as a user would. */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { buildSchema, printSchema } from 'graphql';
import { runCli } from '../support/cli.js';
import { fromRoot } from '../support/paths.js';

const GRAPH = fromRoot('test/fixtures/http/graphql.api');

describe('apidsl graphql', () => {
  it('prints the schema in SDL, the Node interface included', () => {
    const r = runCli(['graphql', GRAPH]);
    expect(r.status, r.stderr).to.equal(0);
    expect(r.stdout).to.match(/^interface Node \{$/m);
    expect(r.stdout).to.match(/^type Query \{$/m);
    // What it prints is a schema graphql-js reads back unchanged.
    expect(printSchema(buildSchema(r.stdout))).to.equal(r.stdout.trimEnd());
  });

  it('--out FILE writes the same SDL to FILE and nothing to stdout', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'apidsl-graphql-')), 'schema.graphql');
    const r = runCli(['graphql', GRAPH, '--out', out]);
    expect(r.status, r.stderr).to.equal(0);
    expect(r.stdout).to.equal('');
    expect(readFileSync(out, 'utf8')).to.equal(runCli(['graphql', GRAPH]).stdout);
  });

  it('prints the diagnostics of a file with errors (exit 1)', () => {
    const r = runCli(['graphql', fromRoot('test/fixtures/broken/unknown-type.api')]);
    expect(r.status).to.equal(1);
    expect(r.stdout).to.equal('');
    expect(r.stderr).to.match(/error/i);
  });
});
