/**
 * Options as the file writes them, made plain values, and the mutators that may rewrite a resource's or an
 * operation's options once at load (resource mutators first; docs/language.md).
 */
import * as A from '../../grammar/ast.js';
import type { ApiModel } from '../../grammar/model.js';
import { loadCode } from './code.js';

export type Plain = Record<string, unknown>;
/** A metadata mutator as load() calls it (published as `Mutator`, types/apidsl.d.ts). */
export type Mutator = (metadata: Plain) => Plain | Promise<Plain>;

/** The file's mutators, by the resource or operation name they target. */
export interface Mutators {
  resources: Map<string, Mutator[]>;
  operations: Map<string, Mutator[]>;
}

/** Written entries as plain values; the first of a repeated key wins (the checker reports the others). */
export const plainEntries = (entries: A.Entry[] | undefined): Plain => {
  const out: Plain = {};
  for (const e of entries ?? []) if (!(e.key.text in out)) out[e.key.text] = A.toPlain(e.value);
  return out;
};

export async function loadMutators(model: ApiModel, baseDir: string): Promise<Mutators> {
  const mutators: Mutators = { resources: new Map(), operations: new Map() };
  for (const m of A.mutators(model.document)) {
    if (!m.target || !m.ref) continue;
    const fn = (await loadCode(m.ref.value, baseDir, `mutator ${m.targetKind?.text} ${m.target.text}`)) as Mutator;
    const map = m.targetKind?.text === 'resource' ? mutators.resources : mutators.operations;
    map.set(m.target.text, [...(map.get(m.target.text) ?? []), fn]);
  }
  return mutators;
}

export async function applyMutators(target: Plain, mutators: Mutator[] | undefined): Promise<Plain> {
  let current = target;
  for (const m of mutators ?? []) current = (await m(current)) ?? current;
  return current;
}
