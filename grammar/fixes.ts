/**
 * Quick fixes for the checker's diagnostics, shared by the language server's code actions and
 * `apidsl check --fix`: "did you mean …" from a diagnostic's suggestion (misspelt names, a
 * type written as another language names it, a default outside its enum, single quotes, an enum list), the missing range/order filter of cursor
 * pagination, a missing colon or comma, enabling PATCH in config, and `format: "email"` for an e-mail pattern.
 */
import type * as A from './ast.js';
import { enumScalarOf } from './ast.js';
import type { CheckResult } from './checker/index.js';
import type { Diagnostic } from './diagnostics.js';
import { wordOf, type ApiModel, type ModelOperation, type ModelResource } from './model.js';

export interface Fix {
  /** What the fix does, as an editor lists it. */
  title: string;
  /** Replacements by offsets in the text the diagnostics were computed on; they never overlap. */
  edits: { range: A.Range; newText: string }[];
  /** The fix to apply when there is one obvious choice (`apidsl check --fix` applies these). */
  preferred?: boolean;
}

function lineStart(text: string, offset: number): number {
  let i = offset;
  while (i > 0 && text[i - 1] !== '\n' && text[i - 1] !== '\r') i--;
  return i;
}

const indentOf = (text: string, offset: number): string =>
  /^[ \t]*/.exec(text.slice(lineStart(text, offset)))?.[0] ?? '';

function suggestionFix(text: string, d: Diagnostic): Fix | undefined {
  if (d.suggestion === undefined) return undefined;
  const written = text.slice(d.range.start, d.range.end);
  const newText = written.startsWith('"') ? JSON.stringify(d.suggestion) : d.suggestion;
  let title = `Change to '${d.suggestion}' (did you mean it?)`;
  if (written.startsWith("'")) title = `Use double quotes: ${d.suggestion}`;
  else if (d.code === 'enum-list') title = `Write ${d.suggestion}`;
  return { title, edits: [{ range: d.range, newText }], preferred: true };
}

// ---- cursor pagination -----------------------------------------------------------------

/** The operation and resource whose (effective) paginationViaCursor holds a range. */
function cursorOwner(
  model: ApiModel,
  range: A.Range,
): { resource: ModelResource; op: ModelOperation; cursor: A.Entry } | undefined {
  for (const resource of model.resources.values()) {
    for (const op of resource.operations) {
      const cursor = op.options.get('paginationViaCursor') ?? resource.options.get('paginationViaCursor');
      if (cursor?.value && cursor.value.range.start <= range.start && range.end <= cursor.value.range.end)
        return { resource, op, cursor };
    }
  }
  return undefined;
}

function cursorFix(text: string, model: ApiModel, d: Diagnostic): Fix | undefined {
  const owner = cursorOwner(model, d.range);
  if (!owner) return undefined;
  const { resource, op, cursor } = owner;
  const items = cursor.value?.kind === 'array' ? cursor.value.items : [];
  const fieldValue = items
    .flatMap((i) => (i.kind === 'object' ? i.entries : []))
    .find((e) => e.key.text === 'field' && e.value?.range.start === d.range.start)?.value;
  const field = wordOf(fieldValue);
  if (field === undefined || field === '') return undefined;
  const filtersEntry = op.options.get('filters') ?? resource.options.get('filters');
  const listed =
    filtersEntry?.value?.kind === 'array'
      ? filtersEntry.value.items.map(wordOf).filter((n): n is string => n !== undefined)
      : [];
  const covers = (kind: string, name: string): boolean => {
    const f = model.filters.get(name);
    return f?.kind === kind && f.properties.some((p) => p.name === field);
  };
  const missing = ['range', 'order'].filter((kind) => !listed.some((n) => covers(kind, n)));
  if (!missing.length) return undefined;
  const edits: Fix['edits'] = [];
  const names: string[] = [];
  const declarations: string[] = [];
  for (const kind of missing) {
    const existing = [...model.filters.keys()].find((n) => covers(kind, n));
    if (existing) {
      names.push(existing);
      continue;
    }
    const base =
      `${resource.name[0].toLowerCase()}${resource.name.slice(1)}${field[0]?.toUpperCase() ?? ''}${field.slice(1)}${kind[0].toUpperCase()}${kind.slice(1)}`.replace(
        /[^A-Za-z0-9_]/g,
        '_',
      );
    let name = base;
    for (let i = 2; model.filters.has(name) || names.includes(name); i++) name = `${base}${i}`;
    names.push(name);
    declarations.push(`filter ${name}: ${kind} { properties: [${JSON.stringify(field)}] }\n`);
  }
  if (declarations.length) {
    const at = lineStart(text, resource.decl.range.start);
    edits.push({ range: { start: at, end: at }, newText: declarations.join('') });
  }
  const quoted = names.map((n) => JSON.stringify(n)).join(', ');
  const list = filtersEntry?.value;
  if (list?.kind === 'array') {
    const last = list.items[list.items.length - 1];
    const at = last ? last.range.end : list.range.start + 1;
    edits.push({ range: { start: at, end: at }, newText: last ? `, ${quoted}` : quoted });
  } else if (!filtersEntry) {
    const end = cursor.range.end;
    const restOfLine = text
      .slice(end)
      .split(/\r?\n|\r/)[0]
      .trim();
    const newText =
      restOfLine === '' || restOfLine.startsWith('//')
        ? `\n${indentOf(text, cursor.range.start)}filters: [${quoted}]`
        : `, filters: [${quoted}]`;
    edits.push({ range: { start: end, end }, newText });
  } else return undefined;
  const what = missing.map((k) => `${k === 'range' ? 'a range' : 'an order'} filter`).join(' and ');
  return { title: `Add ${what} on '${field}' to the operation's filters`, edits, preferred: true };
}

// ---- an enum written as a type -----------------------------------------------------------

/**
 * `status: enum ["a", "b"] { required: true }`: the list moves into the options as `enum`, the type becomes a
 * scalar (without options after the list, the diagnostic's suggestion rewrites it in one edit).
 */
function enumListFix(text: string, model: ApiModel, d: Diagnostic): Fix | undefined {
  for (const resource of model.resources.values()) {
    for (const p of resource.properties.values()) {
      const { type, values, constraints } = p.decl;
      if (!type || !values || !constraints || type.nameRange.start !== d.range.start) continue;
      const scalar = enumScalarOf(type.name, values);
      const list = `enum: [${text.slice(values.range.start + 1, values.range.end - 1).trim()}]`;
      const first = constraints.entries[0];
      const into = first
        ? { range: { start: first.range.start, end: first.range.start }, newText: `${list}, ` }
        : { range: constraints.range, newText: `{ ${list} }` };
      return {
        title: `Write ${scalar} and move the values into its enum`,
        edits: [{ range: { start: d.range.start, end: values.range.end }, newText: scalar }, into],
        preferred: true,
      };
    }
  }
  return undefined;
}

// ---- small syntax fixes ----------------------------------------------------------------

function separatorFix(text: string, d: Diagnostic): Fix {
  let at = d.range.start;
  while (at > 0 && /[ \t]/.test(text[at - 1])) at--;
  return { title: "Insert ','", edits: [{ range: { start: at, end: at }, newText: ',' }], preferred: true };
}

function patchFix(text: string, result: CheckResult): Fix {
  const config = result.document.declarations.find((d): d is A.ConfigDecl => d.kind === 'config');
  const setting = 'patch_formats: ["application/merge-patch+json"]';
  const existing = config?.body.entries.find((e) => e.key.text === 'patch_formats');
  if (existing?.value?.kind === 'array' && existing.value.items.length === 0) {
    const at = existing.value.range.start + 1;
    return {
      title: 'Enable PATCH with application/merge-patch+json',
      edits: [{ range: { start: at, end: at }, newText: '"application/merge-patch+json"' }],
    };
  }
  if (config && !existing && text[config.body.range.start] === '{') {
    const at = config.body.range.start + 1;
    return {
      title: 'Enable PATCH: add patch_formats to config',
      edits: [{ range: { start: at, end: at }, newText: `\n  ${setting}` }],
    };
  }
  const first = result.document.declarations.find((d) => d.kind !== 'api');
  const at = first ? lineStart(text, first.range.start) : text.length;
  return {
    title: 'Enable PATCH: add a config with patch_formats',
    edits: [{ range: { start: at, end: at }, newText: `config {\n  ${setting}\n}\n\n` }],
  };
}

// ---- an e-mail pattern ----------------------------------------------------------------

/** `pattern: "…@…"` (or its object form's value) becomes `format: "email"`, keeping a message and groups. */
function formatEmailFix(model: ApiModel, d: Diagnostic): Fix | undefined {
  for (const resource of model.resources.values()) {
    for (const p of resource.properties.values()) {
      const entry = p.constraints.get('pattern');
      if (!entry?.value || entry.value.range.end < d.range.end || entry.value.range.start > d.range.start) continue;
      return {
        title: 'Use format: "email" instead of the pattern',
        edits: [
          { range: entry.key.range, newText: 'format' },
          { range: d.range, newText: '"email"' },
        ],
      };
    }
  }
  return undefined;
}

/** The fixes for one diagnostic of `result`, computed on `text` (the text that was checked). */
export function fixesFor(text: string, result: CheckResult, d: Diagnostic): Fix[] {
  const fixes: Fix[] = [];
  const suggestion = suggestionFix(text, d);
  if (suggestion) fixes.push(suggestion);
  switch (d.code) {
    case 'cursor-filters-missing': {
      const fix = cursorFix(text, result.model, d);
      if (fix) fixes.push(fix);
      break;
    }
    case 'missing-colon':
      fixes.push({
        title: "Insert ':'",
        edits: [{ range: { start: d.range.end, end: d.range.end }, newText: ':' }],
        preferred: true,
      });
      break;
    case 'missing-separator':
      fixes.push(separatorFix(text, d));
      break;
    case 'enum-list': {
      const fix = suggestion ? undefined : enumListFix(text, result.model, d);
      if (fix) fixes.push(fix);
      break;
    }
    case 'patch-disabled':
      fixes.push(patchFix(text, result));
      break;
    case 'use-format-email': {
      const fix = formatEmailFix(result.model, d);
      if (fix) fixes.push(fix);
      break;
    }
    default:
      break;
  }
  return fixes;
}

/**
 * The fixes `apidsl check --fix` applies to one checked text: per diagnostic, its preferred fix,
 * or its only one; a fix whose edits touch those of a fix already taken waits for the next pass.
 */
export function automaticFixes(text: string, result: CheckResult): Fix[] {
  const taken: Fix[] = [];
  const clashes = (r: A.Range): boolean =>
    taken.some((t) => t.edits.some((e) => r.start <= e.range.end && e.range.start <= r.end));
  for (const d of result.all) {
    // A hint's fix changes what the file means (a pattern becomes a format): the editor offers it, --fix does not.
    if (d.severity === 'hint') continue;
    const fixes = fixesFor(text, result, d);
    const fix = fixes.find((f) => f.preferred) ?? (fixes.length === 1 ? fixes[0] : undefined);
    if (!fix || fix.edits.some((e) => clashes(e.range))) continue;
    taken.push(fix);
  }
  return taken;
}

/** A text with non-overlapping edits applied. */
export function applyEdits(text: string, edits: { range: A.Range; newText: string }[]): string {
  let out = text;
  for (const e of [...edits].sort((a, b) => b.range.start - a.range.start))
    out = out.slice(0, e.range.start) + e.newText + out.slice(e.range.end);
  return out;
}
