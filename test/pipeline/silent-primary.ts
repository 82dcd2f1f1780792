/**
 * Run by rate-limit-primary.test.ts: a primary that keeps no counts (it never made the counts' keeper) and one
 * worker counting "in the primary". The worker prints what three counts against a limit of 2 answered and what
 * it logged.
 */
import cluster from 'node:cluster';
import { pino } from 'pino';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { primaryStore } from '../../server/pipeline/rate-limit-stores.js';

if (cluster.isPrimary) {
  const worker = cluster.fork();
  worker.on('message', (m: { answers?: string[] }) => {
    if (!m.answers) return; // the counter's own messages to the primary, which nothing here answers
    process.stdout.write(`${JSON.stringify(m)}\n`);
    worker.kill();
  });
} else {
  const logged: string[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => logged.push(JSON.parse(line).msg as string) });
  const counter = primaryStore(logger).counter('silent', 2, 60);
  const answers: string[] = [];
  for (let i = 0; i < 3; i++)
    answers.push(
      await counter.consume('client').then(
        (r) => `served, ${r.remainingPoints} left`,
        (e: unknown) => (e instanceof RateLimiterRes ? 'limit reached' : `failed: ${String(e)}`),
      ),
    );
  process.send!({ answers, logged });
}
