/**
 * The long fuzz run (`npm run fuzz -- [count] [seed]`): `count` seeded mutants of the examples (default 16,000)
 * through the checker and the formatter, looking for the defects of test/support/front-end-defects.ts (exceptions,
 * ranges outside the text, unstable formats, changed comments). Counts them by kind (the first few are printed with
 * the mutant's seed and number, so it can be made again); exit code 1 when any.
 */
import { frontEndDefects, type DefectKind } from '../support/front-end-defects.js';
import { exampleTexts, mutant } from '../support/mutants.js';

const count = Number(process.argv[2] ?? 16_000);
const seed = Number(process.argv[3] ?? 1);
const examples = exampleTexts();
const found = new Map<DefectKind, number>();
let total = 0;
let slowest = { ms: 0, n: -1, length: 0 };
const started = Date.now();
for (let n = 0; n < count; n++) {
  const text = mutant(seed, n, examples);
  const t = performance.now();
  const defects = frontEndDefects(text);
  const ms = performance.now() - t;
  if (ms > slowest.ms) slowest = { ms, n, length: text.length };
  for (const d of defects) {
    found.set(d.kind, (found.get(d.kind) ?? 0) + 1);
    if (total++ < 5) process.stderr.write(`${d.kind} on mutant ${seed}/${n}: ${d.detail.slice(0, 300)}\n`);
  }
}
const counts = [...found].map(([kind, n]) => `${n} ${kind}`).join(', ') || 'no defects';
process.stdout.write(
  `${count} mutants (seed ${seed}) in ${((Date.now() - started) / 1000).toFixed(1)} s: ${counts}; ` +
    `slowest ${slowest.ms.toFixed(0)} ms (mutant ${seed}/${slowest.n}, ${slowest.length} chars)\n`,
);
process.exitCode = total > 0 ? 1 : 0;
