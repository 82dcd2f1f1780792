/**
 * A worker of `serve --workers` whose primary does not answer a count in time counts in its own memory: the
 * limit still holds (per worker) and the log says so (docs/behaviour.md, "Rate limits").
 */
import { execFileSync } from 'node:child_process';
import { expect } from 'chai';
import { fromRoot } from '../support/paths.js';

describe('rate limits: a primary that does not answer', () => {
  it('the worker counts alone meanwhile: served twice, then the limit; logged once', function () {
    this.timeout(30_000);
    const out = execFileSync(process.execPath, [fromRoot('dist/test/pipeline/silent-primary.js')], {
      encoding: 'utf8',
      timeout: 25_000,
    });
    const { answers, logged } = JSON.parse(out.trim().split('\n').pop()!) as { answers: string[]; logged: string[] };
    expect(answers).to.deep.equal(['served, 1 left', 'served, 0 left', 'limit reached']);
    expect(logged).to.deep.equal([
      'rate limits: the primary did not answer in time; counting in this worker meanwhile',
    ]);
  });
});
