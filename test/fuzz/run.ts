/**
 * The long fuzz run (`npm run fuzz -- [count] [seed]`): `count` seeded mutants of the examples (default 16,000)
 * through the checker and the formatter. Counts the exceptions of each (the mutant's seed and number are printed
 * so it can be made again) and the formatter's outputs that are not stable; exit code 1 when any.
 */
import { check } from '../../grammar/checker/index.js';
import { format } from '../../grammar/format.js';
import { exampleTexts, mutant } from '../support/mutants.js';

const count = Number(process.argv[2] ?? 16_000);
const seed = Number(process.argv[3] ?? 1);
const examples = exampleTexts();
const failures = { check: 0, format: 0, unstable: 0 };
let slowest = { ms: 0, n: -1, length: 0 };
const started = Date.now();
for (let n = 0; n < count; n++) {
  const text = mutant(seed, n, examples);
  const t = performance.now();
  try {
    check(text);
  } catch (e) {
    if (failures.check++ < 5) process.stderr.write(`check threw on mutant ${seed}/${n}: ${(e as Error).message}\n`);
  }
  const ms = performance.now() - t;
  if (ms > slowest.ms) slowest = { ms, n, length: text.length };
  try {
    const once = format(text);
    if (once.ok) {
      const twice = format(once.text);
      if (!twice.ok || twice.text !== once.text) {
        if (failures.unstable++ < 5) process.stderr.write(`format is not stable on mutant ${seed}/${n}\n`);
      }
    }
  } catch (e) {
    if (failures.format++ < 5) process.stderr.write(`format threw on mutant ${seed}/${n}: ${(e as Error).message}\n`);
  }
}
process.stdout.write(
  `${count} mutants (seed ${seed}) in ${((Date.now() - started) / 1000).toFixed(1)} s: ${failures.check} checker exceptions, ` +
    `${failures.format} formatter exceptions, ${failures.unstable} unstable formats; slowest check ${slowest.ms.toFixed(0)} ms ` +
    `(mutant ${seed}/${slowest.n}, ${slowest.length} chars)\n`,
);
process.exitCode = failures.check + failures.format + failures.unstable > 0 ? 1 : 0;
