/**
 * `apidsl diff OLD.api NEW.api` as a user runs it: its formats, its exit status under `--fail-on`, the version note,
 * and `renamedFrom`, whose migration commands, run on a real store, move the stored values and items.
 */
import { expect } from 'chai';
import Database from 'better-sqlite3';
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DiffOutput } from '../../server/diff/render.js';
import { runCli } from '../support/cli.js';
import { pairFile } from '../support/diff-pairs.js';

const diff = (pair: string, ...flags: string[]) =>
  runCli(['diff', pairFile(pair, 'old.api'), pairFile(pair, 'new.api'), ...flags]);

const json = (pair: string): DiffOutput => JSON.parse(diff(pair, '--format', 'json').stdout) as DiffOutput;

/** A folder holding a pair's two files (their data beside them, in .apidsl-data/). */
function folderOf(pair: string): string {
  const dir = mkdtempSync(join(tmpdir(), `apidsl-diff-${pair}-`));
  for (const file of ['old.api', 'new.api'] as const) copyFileSync(pairFile(pair, file), join(dir, file));
  return dir;
}

describe('CLI: apidsl diff', function () {
  this.timeout(120_000);

  it('prints the findings most severe first, with who they break and the routes, and exits 0 without --fail-on', () => {
    const r = diff('several-changes');
    expect(r.status, r.stderr).to.equal(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).to.equal('Shop 1.0.0 → 1.0.0: 3 breaking, 0 warnings, 1 info');
    expect(lines[1]).to.match(/^note: breaking changes, but api \{ version \} goes 1\.0\.0 → 1\.0\.0/);
    expect(lines[2]).to.equal('breaking property-removed [json, hypermedia, client, storage] Product.stock: removed');
    expect(lines[3]).to.contain('GET /products, POST /products, GET /products/{id}');
    expect(r.stdout.indexOf('info     property-added')).to.be.greaterThan(r.stdout.lastIndexOf('breaking'));
  });

  it('--fail-on breaking exits 1 on a breaking change, 0 when the worst is a warning; --fail-on warning exits 1 on it', () => {
    expect(diff('property-removed', '--fail-on', 'breaking').status).to.equal(1);
    expect(diff('items-per-page-lowered', '--fail-on', 'breaking').status).to.equal(0);
    expect(diff('items-per-page-lowered', '--fail-on', 'warning').status).to.equal(1);
    expect(diff('items-per-page-raised', '--fail-on', 'warning').status).to.equal(0);
    expect(diff('comments-only', '--fail-on', 'warning').status).to.equal(0);
  });

  it('--format json holds the findings, counts, version note and each store’s migration plan', () => {
    const report = json('max-length-lowered');
    expect(report.counts).to.deep.equal({ info: 0, warning: 0, breaking: 1 });
    expect(report.findings).to.deep.equal([
      {
        kind: 'bound-narrowed',
        severity: 'breaking',
        audiences: ['json', 'client', 'storage'],
        subject: 'Product.name',
        detail: 'maxLength 100 → 50',
        routes: ['POST /products', 'PUT /products/{id}', 'PATCH /products/{id}'],
      },
    ]);
    expect(report.migration.map((p) => p.store)).to.deep.equal(['sqlite', 'mongodb']);
    expect(report.migration[0]!.steps).to.deep.equal([
      {
        resource: 'Product',
        action: 'checks',
        change: 'name: maxLength 100 → 50',
        commands: [
          `SELECT count(*) FROM "Product" WHERE json_type("doc", '$."name"') = 'text' AND length(json_extract("doc", '$."name"')) > 50;`,
        ],
      },
    ]);
    expect(report.migration[1]!.steps[0]!.commands).to.deep.equal([
      'db.getCollection("Product").countDocuments({"name":{"$regex":"^[\\\\s\\\\S]{51,}"}})',
    ]);
  });

  it('--format markdown is a table fit for a pull-request comment, the migration folded', () => {
    const r = diff('several-changes', '--format', 'markdown');
    expect(r.status).to.equal(0);
    expect(r.stdout).to.match(/^### API changes: Shop 1\.0\.0 → 1\.0\.0\n\n\*\*3 breaking, 0 warnings, 1 info\*\*\n/);
    expect(r.stdout).to.contain('> [!WARNING]');
    expect(r.stdout).to.contain('| severity | change | who | subject | detail | routes |');
    expect(r.stdout).to.contain(
      '| breaking | `bound-narrowed` | json, client, storage | Product.name | maxLength 100 → 80 | `POST /products`<br>`PUT /products/{id}`<br>`PATCH /products/{id}` |',
    );
    expect(r.stdout).to.contain('<details><summary>Migration (sqlite)</summary>');
  });

  it('says nothing of the version when the major version was bumped', () => {
    const r = diff('major-version-bumped');
    expect(r.stdout.split('\n')[0]).to.equal('Shop 1.0.0 → 2.0.0: 1 breaking, 0 warnings, 0 info');
    expect(r.stdout).to.not.contain('note:');
  });

  it('renamedFrom on a property: a rename, whose SQL moves the stored values to the new name', () => {
    const dir = folderOf('property-renamed');
    const data = join(dir, 'products.json');
    writeFileSync(data, JSON.stringify([{ name: 'lamp', stock: 3 }, { name: 'desk' }]));
    expect(runCli(['import', join(dir, 'old.api'), 'Product', data]).status).to.equal(0);
    const report = json('property-renamed');
    expect(report.findings.map((f) => `${f.kind} ${f.subject}`)).to.deep.equal(['property-renamed Product.quantity']);
    const [move] = report.migration[0]!.steps;
    expect(move).to.include({ action: 'by-hand', change: 'stock renamed to quantity' });
    const db = new Database(join(dir, '.apidsl-data', 'apidsl.sqlite'));
    for (const sql of move!.commands) db.exec(sql);
    db.close();
    const exported = runCli(['export', join(dir, 'new.api'), 'Product', '--format', 'json']);
    expect(exported.status, exported.stderr).to.equal(0);
    const items = JSON.parse(exported.stdout) as Record<string, unknown>[];
    expect(items.map(({ name, quantity, stock }) => ({ name, quantity, stock }))).to.deep.equal([
      { name: 'lamp', quantity: 3, stock: undefined },
      { name: 'desk', quantity: undefined, stock: undefined },
    ]);
  });

  it('without renamedFrom the same edit is a removal and an addition', () => {
    const report = json('property-renamed-unannounced');
    expect(report.findings.map((f) => `${f.kind} ${f.subject}`)).to.deep.equal([
      'property-removed Product.stock',
      'property-added Product.quantity',
    ]);
  });

  it('renamedFrom on a resource: a rename, whose export and import move the items to the new collection', () => {
    const dir = folderOf('resource-renamed');
    const products = join(dir, 'products.json');
    writeFileSync(products, JSON.stringify([{ name: 'lamp' }]));
    const reviews = join(dir, 'reviews.json');
    writeFileSync(reviews, JSON.stringify([{ body: 'bright', rating: 5, product: '/products/1' }]));
    expect(runCli(['import', join(dir, 'old.api'), 'Product', products]).status).to.equal(0);
    expect(runCli(['import', join(dir, 'old.api'), 'Review', reviews]).status).to.equal(0);
    const out = runCli(['diff', join(dir, 'old.api'), join(dir, 'new.api'), '--format', 'json'], { cwd: dir });
    const report = JSON.parse(out.stdout) as DiffOutput;
    expect(report.findings.map((f) => `${f.kind} ${f.subject}`)).to.deep.equal(['resource-renamed Opinion']);
    const move = report.migration[0]!.steps.find((s) => s.resource === 'Opinion')!;
    expect(move).to.include({ action: 'by-hand', change: 'the items of Review move to Opinion' });
    for (const command of move.commands) {
      const r = runCli(command.split(' ').slice(1), { cwd: dir });
      expect(r.status, r.stderr).to.equal(0);
    }
    const exported = runCli(['export', join(dir, 'new.api'), 'Opinion', '--format', 'json']);
    expect(JSON.parse(exported.stdout)).to.deep.equal([{ id: 1, body: 'bright', rating: 5, product: '/products/1' }]);
  });

  it('renamedFrom naming a property or resource the file still declares is an error of check', () => {
    const dir = mkdtempSync(join(tmpdir(), 'apidsl-diff-check-'));
    const file = join(dir, 'shop.api');
    writeFileSync(
      file,
      [
        'resource Product {',
        '  properties { id: int { identifier: true }, name: string, title: string { renamedFrom: "name" } }',
        '}',
        'resource Item {',
        '  renamedFrom: "Product"',
        '  properties { id: int { identifier: true } }',
        '}',
      ].join('\n'),
    );
    const r = runCli(['check', file]);
    expect(r.status).to.equal(1);
    expect(r.stdout + r.stderr).to.contain("renamedFrom: 'Product' still has a property 'name'");
    expect(r.stdout + r.stderr).to.contain("renamedFrom: the file still declares a resource 'Product'");
  });

  it('a file with errors is reported as check reports it, exit 1', () => {
    const dir = mkdtempSync(join(tmpdir(), 'apidsl-diff-broken-'));
    const broken = join(dir, 'broken.api');
    writeFileSync(broken, 'resource Product { properties { id: integr } }\n');
    const r = runCli(['diff', pairFile('comments-only', 'old.api'), broken]);
    expect(r.status).to.equal(1);
    expect(r.stderr).to.match(/apidsl diff: .*broken\.api has 2 errors\./);
  });
});
