/** The signals that stop a long-running command (`serve`, its workers, `consume`). */

/** Resolves at the first SIGINT or SIGTERM. */
export function stopSignal(): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
