/**
 * Debian's Chromium for the browser tests, driven by playwright-core. Under CI=true a missing Chromium (or a
 * missing build the test needs) fails the suite; elsewhere the suite is skipped with one loud line.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Fails under CI=true, else skips the suite with a line saying what is missing and how to get it. */
export function requireOrSkip(ctx: Mocha.Context, present: boolean, what: string, howTo: string): void {
  if (present) return;
  if (process.env.CI === 'true') throw new Error(`${what} is missing: ${howTo} (CI must have it; see .ci/run)`);
  console.error(`\n*** SKIPPED ${ctx.test?.parent?.title ?? 'a suite'}: ${what} is missing (${howTo}) ***\n`);
  ctx.skip();
}

/** Chromium, or the suite fails (CI) or is skipped. */
export async function launchChromium(ctx: Mocha.Context): Promise<Browser> {
  requireOrSkip(ctx, existsSync(CHROMIUM), CHROMIUM, 'apt-get install -y chromium');
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}
