// The test run of `npm test`: every test file (.mocharc.json's spec, reporter and timeout), as two mocha processes
// side by side: the HTTP suite (dist/test/http/) in one, every other file in the other, about half of a run's time
// each (in a CI replica on 2026-12-07: 32 and 30 minutes of file time). Much of a test waits on the servers it
// spawned, and one run at a time leaves a core of a two-core machine idle. The files share nothing with each other
// (ports 0, their own directories and databases), as CI's store runs of the HTTP suite beside this run show.
// The HTTP half's output streams as it comes; the other's follows once both are done; the last line sums both in
// the reporter's form ("N passed, N failed, N skipped"). Exit code 1 when either failed. With
// APIDSL_TEST_TIMES=FILE the halves write FILE.http and FILE.rest.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const config = JSON.parse(readFileSync(join(root, '.mocharc.json'), 'utf8'));
const HTTP_SUITE = 'dist/test/http/**';
/** The HTTP suite with the config's reporter and timeout; everything else is the config's spec without it. */
const HALVES = {
  http: ['--no-config', '--reporter', config.reporter, '--timeout', String(config.timeout), `${HTTP_SUITE}/*.test.js`],
  rest: ['--ignore', HTTP_SUITE],
};

/** Runs mocha on a half (its output also written to stdout as it comes when `echo`): exit code and output. */
function runMocha(name, echo) {
  const times = process.env.APIDSL_TEST_TIMES;
  const child = spawn(process.execPath, [join(root, 'node_modules/mocha/bin/mocha.js'), ...HALVES[name]], {
    cwd: root,
    env: { ...process.env, ...(times ? { APIDSL_TEST_TIMES: `${times}.${name}` } : {}) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  for (const [from, to] of [
    [child.stdout, process.stdout],
    [child.stderr, process.stderr],
  ])
    from.on('data', (chunk) => {
      output += chunk;
      if (echo) to.write(chunk);
    });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output })));
}

/** The last "N passed, N failed, N skipped" line of a half; none (it crashed): one failure. */
function counts(output) {
  const lines = [...output.matchAll(/^(\d+) passed, (\d+) failed, (\d+) skipped$/gm)];
  const last = lines.at(-1);
  return last ? last.slice(1, 4).map(Number) : [0, 1, 0];
}

const others = runMocha('rest', false);
const http = await runMocha('http', true);
const rest = await others;
process.stdout.write(`\n=== the test files outside the HTTP suite, run beside it ===\n${rest.output}`);
const [a, b] = [counts(http.output), counts(rest.output)];
process.stdout.write(`\n${a[0] + b[0]} passed, ${a[1] + b[1]} failed, ${a[2] + b[2]} skipped\n`);
process.exitCode = http.code === 0 && rest.code === 0 ? 0 : 1;
