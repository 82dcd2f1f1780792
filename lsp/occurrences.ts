/**
 * Where filters, resources and operations are named in a file: their declarations and every
 * reference (filter lists and `parameters`, relation types, mutator targets, resource-typed
 * options). Navigation, rename, highlights and semantic tokens all read this one index.
 */
import type * as A from '../grammar/ast.js';
import { PROPERTY_TYPES } from '../grammar/catalogue/index.js';
import type { CheckResult } from '../grammar/checker/index.js';
import { wordOf } from '../grammar/model.js';
import { optionEntries, walkTyped } from './walk.js';

export type NameKind = 'filter' | 'resource' | 'operation';

export interface Occurrence {
  kind: NameKind;
  name: string;
  /** The whole token, quotes included. */
  range: A.Range;
  /** The name's own text (inside the quotes of a string): what a rename replaces. */
  nameRange: A.Range;
  declaration: boolean;
  /** False for an operation's derived name (`_api_/books_get`), which is written nowhere. */
  renameable: boolean;
}

const BUILTIN_TYPES = new Set(PROPERTY_TYPES.map((t) => t.name));

/** The range of a name without the quotes of a string literal. */
export function innerRange(text: string, range: A.Range): A.Range {
  if (text[range.start] !== '"') return range;
  const end = range.end - 1 > range.start && text[range.end - 1] === '"' ? range.end - 1 : range.end;
  return { start: range.start + 1, end };
}

export function occurrences(result: CheckResult): Occurrence[] {
  const { text, model, document } = result;
  const out: Occurrence[] = [];
  const add = (kind: NameKind, name: string, range: A.Range, declaration: boolean, renameable = true): void => {
    out.push({ kind, name, range, nameRange: innerRange(text, range), declaration, renameable });
  };
  for (const decl of document.declarations) {
    if (decl.kind === 'filter' && decl.name) add('filter', decl.name.text, decl.name.range, true);
    if (decl.kind === 'resource') {
      if (decl.name) add('resource', decl.name.text, decl.name.range, true);
      for (const block of decl.propertiesBlocks) {
        for (const p of block.properties)
          if (p.type && !BUILTIN_TYPES.has(p.type.name)) add('resource', p.type.name, p.type.nameRange, false);
      }
    }
    if (decl.kind === 'mutator' && decl.target && decl.targetKind) {
      if (decl.targetKind.text === 'resource') add('resource', decl.target.text, decl.target.range, false);
      if (decl.targetKind.text === 'operation') add('operation', decl.target.text, decl.target.range, false);
    }
  }
  for (const resource of model.resources.values()) {
    for (const op of resource.operations) {
      if (!op.decl) continue;
      const nameValue = op.options.get('name')?.value;
      if (op.decl.name) add('operation', op.name, op.decl.name.range, true);
      else if (nameValue && wordOf(nameValue) !== undefined) add('operation', op.name, nameValue.range, true);
      else add('operation', op.name, op.decl.opKind.range, true, false);
    }
  }
  for (const { entry, spec } of optionEntries(model)) {
    if (!spec) continue;
    walkTyped(entry.value, spec.type, (value, type) => {
      const name = wordOf(value);
      if (name === undefined) return;
      if (type.kind === 'filterRef') add('filter', name, value.range, false);
      if (type.kind === 'resourceRef') add('resource', name, value.range, false);
    });
  }
  return out.sort((a, b) => a.range.start - b.range.start);
}

/** The occurrence under an offset (a cursor just after a name still points at it). */
export function occurrenceAt(all: Occurrence[], offset: number): Occurrence | undefined {
  return all.find((o) => o.range.start <= offset && offset < o.range.end) ?? all.find((o) => o.range.end === offset);
}

/** Every occurrence naming the same thing. */
export function sameSymbol(all: Occurrence[], target: Occurrence): Occurrence[] {
  return all.filter((o) => o.kind === target.kind && o.name === target.name);
}
