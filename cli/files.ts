/** The files a command works on: files as named, folders as every `*.api` file inside, recursively. */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Folders skipped when walking: dependencies and hidden folders (`.git`…). */
const SKIPPED = (name: string): boolean => name === 'node_modules' || name.startsWith('.');

/** Expands folders into their `.api` files (sorted); anything else, missing paths included, is kept as given. */
export function apiFiles(paths: string[]): string[] {
  return paths.flatMap((p) => {
    let isDir = false;
    try {
      isDir = statSync(p).isDirectory();
    } catch {
      return [p]; // reported as unreadable by the command
    }
    return isDir ? walk(p) : [p];
  });
}

function walk(dir: string): string[] {
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
    a.name < b.name ? -1 : Number(a.name > b.name),
  );
  return entries.flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return SKIPPED(e.name) ? [] : walk(path);
    return e.isFile() && e.name.endsWith('.api') ? [path] : [];
  });
}
