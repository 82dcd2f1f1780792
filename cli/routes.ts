/** `apidsl routes FILE.api`: the route table (also printed by `serve` at start). */
import type { ApiMetadata } from '../server/metadata/types.js';
import { loadApi } from '../server/load-api.js';
import { startFailure } from './start-failure.js';

export function routeTable(api: ApiMetadata): string {
  const rows = api.resources.flatMap((r) =>
    r.operations.map((o) => {
      const flags = [o.hidden ? 'hidden' : '', o.options.deprecationReason ? 'deprecated' : '']
        .filter(Boolean)
        .join(',');
      return [o.method, o.path, o.name, r.shortName, flags];
    }),
  );
  const header = ['METHOD', 'PATH', 'OPERATION', 'RESOURCE', 'FLAGS'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  return [header, ...rows]
    .map((row) =>
      row
        .map((cell, i) => cell.padEnd(widths[i]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

export async function runRoutes(file: string): Promise<number> {
  try {
    process.stdout.write(`${routeTable(await loadApi(file))}\n`);
    return 0;
  } catch (e) {
    return startFailure({ command: 'routes', file }, e);
  }
}
