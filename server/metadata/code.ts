/**
 * Custom code referenced from a `.api` file as `"./file.mjs#export"`, resolved against the
 * file's directory and imported once at load. A missing file, export or non-function export
 * stops the start with a message naming both.
 */
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Refusal } from '../refusal.js';

// Custom code is user JavaScript: its signatures are documented in types/apidsl.d.ts.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type CodeFunction = (...args: any[]) => unknown;

export class CodeLoadError extends Refusal {}

const modules = new Map<string, Promise<Record<string, unknown>>>();

export async function loadCode(ref: string, baseDir: string, what: string): Promise<CodeFunction> {
  const m = /^(.+)#([A-Za-z_$][\w$]*)$/.exec(ref);
  if (!m) throw new CodeLoadError(`${what}: "${ref}" is not "<file>#<export>"`);
  const [, file, exportName] = m;
  const path = isAbsolute(file) ? file : resolve(baseDir, file);
  let loaded = modules.get(path);
  if (!loaded) {
    loaded = import(pathToFileURL(path).href) as Promise<Record<string, unknown>>;
    modules.set(path, loaded);
  }
  let mod: Record<string, unknown>;
  try {
    mod = await loaded;
  } catch (e) {
    throw new CodeLoadError(`${what}: cannot load ${file} (${path}): ${(e as Error).message}`);
  }
  const fn = mod[exportName];
  if (fn === undefined) throw new CodeLoadError(`${what}: ${file} has no export '${exportName}'`);
  if (typeof fn !== 'function') throw new CodeLoadError(`${what}: export '${exportName}' of ${file} is not a function`);
  return fn as CodeFunction;
}
