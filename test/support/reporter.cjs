'use strict';
// Mocha's spec reporter, plus, at the end, the ten test files that took longest (where a run's time goes: CI
// prints it for each of its runs) and one closing line in the plain form CI tools read:
// "N passed, N failed, N skipped".
const Mocha = require('mocha');
const path = require('path');

const { EVENT_HOOK_END, EVENT_RUN_END, EVENT_TEST_END } = Mocha.Runner.constants;
const SLOWEST_SHOWN = 10;

class SpecWithSummary extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    // Time between two ends of a test or hook, charged to the file of the second: a file's tests and hooks.
    const byFile = new Map();
    let last = Date.now();
    const charge = (runnable) => {
      const now = Date.now();
      const file = runnable && runnable.file ? path.relative(process.cwd(), runnable.file) : '(root hooks)';
      byFile.set(file, (byFile.get(file) || 0) + (now - last));
      last = now;
    };
    runner.on(EVENT_TEST_END, charge);
    runner.on(EVENT_HOOK_END, charge);
    runner.once(EVENT_RUN_END, () => {
      const slowest = [...byFile].sort((a, b) => b[1] - a[1]).slice(0, SLOWEST_SHOWN);
      if (slowest.length) {
        process.stdout.write('\nslowest files:\n');
        for (const [file, ms] of slowest) process.stdout.write(`  ${(ms / 1000).toFixed(0).padStart(5)} s  ${file}\n`);
      }
      const s = runner.stats || {};
      process.stdout.write(`\n${s.passes || 0} passed, ${s.failures || 0} failed, ${s.pending || 0} skipped\n`);
    });
  }
}

module.exports = SpecWithSummary;
