/**
 * `apidsl diff OLD.api NEW.api [--format text|json|markdown] [--fail-on breaking|warning]`: the changes between two
 * versions of an API, each with its severity and who it breaks, and the migration each store would need
 * (docs/diff.md). Exit 1 when a finding at or above `--fail-on` exists (or a file does not load), else 0.
 */
import { atLeast, type Severity } from '../server/diff/findings.js';
import { diffApis } from '../server/diff/index.js';
import { migrationPlans } from '../server/diff/migration.js';
import { renderDiff, type DiffFormat } from '../server/diff/render.js';
import { loadApi } from '../server/load-api.js';
import { startFailure } from './start-failure.js';

export interface DiffOptions {
  format: DiffFormat;
  failOn?: Severity;
}

export async function runDiff(oldFile: string, newFile: string, opts: DiffOptions): Promise<number> {
  let file = oldFile;
  try {
    const before = await loadApi(oldFile);
    file = newFile;
    const after = await loadApi(newFile);
    const report = diffApis(before, after);
    process.stdout.write(
      renderDiff(
        { ...report, migration: await migrationPlans(before, after, { old: oldFile, new: newFile }) },
        opts.format,
      ),
    );
    const failOn = opts.failOn;
    return failOn !== undefined && report.findings.some((f) => atLeast(f.severity, failOn)) ? 1 : 0;
  } catch (e) {
    return startFailure({ command: 'diff', file }, e);
  }
}
