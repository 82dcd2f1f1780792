'use strict';
// Mocha's spec reporter, plus, at the end, the ten test files that took longest (where a run's time goes: CI
// prints it for each of its runs) and one closing line in the plain form CI tools read:
// "N passed, N failed, N skipped". With APIDSL_TEST_TIMES=FILE, every file's time is also written to FILE
// (seconds and path, one per line, slowest first), to compare two runs.
const Mocha = require('mocha');
const fs = require('fs');
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
      const byTime = [...byFile].sort((a, b) => b[1] - a[1]);
      if (process.env.APIDSL_TEST_TIMES) {
        const lines = byTime.map(([file, ms]) => `${(ms / 1000).toFixed(1)}\t${file}\n`);
        fs.writeFileSync(process.env.APIDSL_TEST_TIMES, lines.join(''));
      }
      const slowest = byTime.slice(0, SLOWEST_SHOWN);
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
