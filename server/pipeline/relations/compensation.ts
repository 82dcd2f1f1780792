/**
 * Compensating writes: where the store has no transaction (MongoDB), a write of several items that fails undoes
 * the ones it made, last first (nested documents, custom code's cross-resource writes).
 */
import type { Logger } from 'pino';

/** Runs the undo steps last first; one that fails is logged (`what` stays as written) and the others still run. */
export async function compensate(
  undo: readonly (() => Promise<unknown>)[],
  logger: Logger,
  what: string,
): Promise<void> {
  for (const step of [...undo].reverse()) {
    try {
      await step();
    } catch (e) {
      logger.error({ err: e }, `a compensating write failed; ${what} stays as written`);
    }
  }
}
