/** What the admin's test files share: the shop fixture, and the admin build they need. */
import { join } from 'node:path';
import { adminFolder, builtAdmin } from '../../server/http/admin-page.js';
import { requireOrSkip } from '../support/chromium.js';
import { fromRoot } from '../support/paths.js';

export const SHOP = fromRoot('test/fixtures/admin/shop.api');

/** Fails under CI=true when the admin is not built, else skips the suite. */
export function requireAdminBuild(ctx: Mocha.Context): void {
  requireOrSkip(
    ctx,
    builtAdmin() !== undefined,
    `the admin build (${join(adminFolder(), 'manifest.json')})`,
    'npm run build:admin',
  );
}
