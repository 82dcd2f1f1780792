/**
 * The corpus of change pairs (test/diff/pairs/<pair>/old.api, new.api, expected.json): for each pair, `apidsl diff`
 * finds exactly the findings a reviewer expects (kind, subject, severity) and notes a missing major version bump
 * exactly when expected. Together the pairs show every finding kind.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { FINDING_KINDS } from '../../server/diff/findings.js';
import { diffApis } from '../../server/diff/index.js';
import { loadApi } from '../../server/load-api.js';
import { expectedOf, pairFile, PAIRS } from '../support/diff-pairs.js';
import { fromRoot } from '../support/paths.js';

const key = (f: { severity: string; kind: string; subject: string }): string => `${f.severity} ${f.kind} ${f.subject}`;

describe('apidsl diff: the corpus of change pairs', function () {
  this.timeout(60_000);

  it('has at least 60 pairs, which together show every finding kind', () => {
    expect(PAIRS.length).to.be.at.least(60);
    const shown = new Set(PAIRS.flatMap((pair) => expectedOf(pair).findings.map((f) => f.kind)));
    expect(Object.keys(FINDING_KINDS).filter((kind) => !shown.has(kind))).to.deep.equal([]);
  });

  it('docs/diff.md names every finding kind', () => {
    const doc = readFileSync(fromRoot('docs/diff.md'), 'utf8');
    expect(Object.keys(FINDING_KINDS).filter((kind) => !doc.includes(`\`${kind}\``))).to.deep.equal([]);
  });

  for (const pair of PAIRS) {
    const expected = expectedOf(pair);
    it(`${pair}: ${expected.description}`, async () => {
      const report = diffApis(await loadApi(pairFile(pair, 'old.api')), await loadApi(pairFile(pair, 'new.api')));
      expect(report.findings.map(key).sort()).to.deep.equal(expected.findings.map(key).sort());
      expect(report.versionNote !== undefined, report.versionNote).to.equal(expected.versionNote);
      for (const f of report.findings) expect(f.audiences).to.deep.equal([...FINDING_KINDS[f.kind].audiences]);
    });
  }
});
