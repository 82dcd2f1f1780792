/**
 * Progress of a long command on stderr: a bar with items/s and the time left on a terminal (cli-progress),
 * a plain line every few seconds otherwise (logs, CI), and always a last line with the totals.
 */
import type { SingleBar } from 'cli-progress';

export interface Progress {
  /** `done` of `total` units (bytes read, items written) and the items handled so far. */
  update(done: number, items: number): void;
  /** Removes the bar and prints the summary line. */
  stop(summary: string): void;
}

const PLAIN_EVERY_MS = 5_000;

/** `label`: what is going on ("importing books.csv"); `total`: the units `update` counts towards. */
export async function startProgress(label: string, total: number): Promise<Progress> {
  const started = Date.now();
  const rate = (items: number): number => Math.round(items / Math.max((Date.now() - started) / 1000, 0.001));
  if (process.stderr.isTTY) {
    const { default: cliProgress } = await import('cli-progress');
    const bar: SingleBar = new cliProgress.SingleBar(
      {
        format: `${label} [{bar}] {percentage}% | {items} items | {rate} items/s | ETA {eta_formatted}`,
        stream: process.stderr,
        etaBuffer: 50,
        hideCursor: true,
        clearOnComplete: true,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(Math.max(total, 1), 0, { items: 0, rate: 0 });
    return {
      update: (done, items) => bar.update(Math.min(done, total), { items, rate: rate(items) }),
      stop: (summary) => {
        bar.stop();
        process.stderr.write(`${summary}\n`);
      },
    };
  }
  let last = started;
  return {
    update: (done, items) => {
      const now = Date.now();
      if (now - last < PLAIN_EVERY_MS) return;
      last = now;
      const percent = total > 0 ? ` (${Math.floor((100 * Math.min(done, total)) / total)}%)` : '';
      process.stderr.write(`${label}: ${items} items${percent}, ${rate(items)} items/s\n`);
    },
    stop: (summary) => process.stderr.write(`${summary}\n`),
  };
}
