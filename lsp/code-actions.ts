/**
 * Quick fixes for the checker's diagnostics: "did you mean …" from a diagnostic's
 * suggestion, the missing range/order filter of cursor pagination, a missing colon or
 * comma, and enabling PATCH in config.
 */
import { CodeActionKind, type CodeAction, type CodeActionParams, type Diagnostic as LspDiagnostic, type TextEdit } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type * as A from '../grammar/ast.js';
import type { Diagnostic } from '../grammar/diagnostics.js';
import { wordOf, type ApiModel, type ModelOperation, type ModelResource } from '../grammar/model.js';
import type { Analysis } from './analysis.js';
import { toLspDiagnostic } from './diagnostics.js';
import { toOffset, toRange } from './ranges.js';

interface Fix {
  title: string;
  edits: { range: A.Range; newText: string }[];
  preferred?: boolean;
}

const overlaps = (a: A.Range, b: A.Range): boolean => a.start <= b.end && b.start <= a.end;

function lineStart(text: string, offset: number): number {
  let i = offset;
  while (i > 0 && text[i - 1] !== '\n' && text[i - 1] !== '\r') i--;
  return i;
}

const indentOf = (text: string, offset: number): string => /^[ \t]*/.exec(text.slice(lineStart(text, offset)))?.[0] ?? '';

function suggestionFix(text: string, d: Diagnostic): Fix | undefined {
  if (d.suggestion === undefined) return undefined;
  const written = text.slice(d.range.start, d.range.end);
  const newText = written.startsWith('"') ? JSON.stringify(d.suggestion) : d.suggestion;
  return { title: `Change to '${d.suggestion}' (did you mean it?)`, edits: [{ range: d.range, newText }], preferred: true };
}

// ---- cursor pagination -----------------------------------------------------------------

function filterProperties(filter: A.FilterDecl): string[] {
  const props = filter.body?.entries.find((e) => e.key.text === 'properties')?.value;
  if (props?.kind === 'array') return props.items.map(wordOf).filter((n): n is string => n !== undefined);
  if (props?.kind === 'object') return props.entries.map((e) => e.key.text);
  return [];
}

/** The operation and resource whose (effective) paginationViaCursor holds a range. */
function cursorOwner(model: ApiModel, range: A.Range): { resource: ModelResource; op: ModelOperation; cursor: A.Entry } | undefined {
  for (const resource of model.resources.values()) {
    for (const op of resource.operations) {
      const cursor = op.options.get('paginationViaCursor') ?? resource.options.get('paginationViaCursor');
      if (cursor?.value && cursor.value.range.start <= range.start && range.end <= cursor.value.range.end) return { resource, op, cursor };
    }
  }
  return undefined;
}

function cursorFix(text: string, model: ApiModel, d: Diagnostic): Fix | undefined {
  const owner = cursorOwner(model, d.range);
  if (!owner) return undefined;
  const { resource, op, cursor } = owner;
  const items = cursor.value?.kind === 'array' ? cursor.value.items : [];
  const fieldValue = items.flatMap((i) => (i.kind === 'object' ? i.entries : [])).find((e) => e.key.text === 'field' && e.value?.range.start === d.range.start)?.value;
  const field = wordOf(fieldValue);
  if (field === undefined || field === '') return undefined;
  const filtersEntry = op.options.get('filters') ?? resource.options.get('filters');
  const listed = filtersEntry?.value?.kind === 'array' ? filtersEntry.value.items.map(wordOf).filter((n): n is string => n !== undefined) : [];
  const covers = (kind: string, name: string): boolean => {
    const f = model.filters.get(name);
    return f?.filterKind?.text === kind && filterProperties(f).includes(field);
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
    const base = `${resource.name[0].toLowerCase()}${resource.name.slice(1)}${field[0]?.toUpperCase() ?? ''}${field.slice(1)}${kind[0].toUpperCase()}${kind.slice(1)}`.replace(/[^A-Za-z0-9_]/g, '_');
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
    const restOfLine = text.slice(end).split(/\r?\n|\r/)[0].trim();
    const newText = restOfLine === '' || restOfLine.startsWith('//') ? `\n${indentOf(text, cursor.range.start)}filters: [${quoted}]` : `, filters: [${quoted}]`;
    edits.push({ range: { start: end, end }, newText });
  } else return undefined;
  const what = missing.map((k) => `${k === 'range' ? 'a range' : 'an order'} filter`).join(' and ');
  return { title: `Add ${what} on '${field}' to the operation's filters`, edits, preferred: true };
}

// ---- small syntax fixes ----------------------------------------------------------------

function separatorFix(text: string, d: Diagnostic): Fix {
  let at = d.range.start;
  while (at > 0 && /[ \t]/.test(text[at - 1])) at--;
  return { title: "Insert ','", edits: [{ range: { start: at, end: at }, newText: ',' }], preferred: true };
}

function patchFix(text: string, analysis: Analysis): Fix {
  const config = analysis.result.document.declarations.find((d): d is A.ConfigDecl => d.kind === 'config');
  const setting = 'patch_formats: ["application/merge-patch+json"]';
  const existing = config?.body.entries.find((e) => e.key.text === 'patch_formats');
  if (existing?.value?.kind === 'array' && existing.value.items.length === 0) {
    const at = existing.value.range.start + 1;
    return { title: 'Enable PATCH with application/merge-patch+json', edits: [{ range: { start: at, end: at }, newText: '"application/merge-patch+json"' }] };
  }
  if (config && !existing && text[config.body.range.start] === '{') {
    const at = config.body.range.start + 1;
    return { title: 'Enable PATCH: add patch_formats to config', edits: [{ range: { start: at, end: at }, newText: `\n  ${setting}` }] };
  }
  const first = analysis.result.document.declarations.find((d) => d.kind !== 'api');
  const at = first ? lineStart(text, first.range.start) : text.length;
  return { title: 'Enable PATCH: add a config with patch_formats', edits: [{ range: { start: at, end: at }, newText: `config {\n  ${setting}\n}\n\n` }] };
}

function fixesFor(text: string, analysis: Analysis, d: Diagnostic): Fix[] {
  const fixes: Fix[] = [];
  const suggestion = suggestionFix(text, d);
  if (suggestion) fixes.push(suggestion);
  switch (d.code) {
    case 'cursor-filters-missing': {
      const fix = cursorFix(text, analysis.result.model, d);
      if (fix) fixes.push(fix);
      break;
    }
    case 'missing-colon':
      fixes.push({ title: "Insert ':'", edits: [{ range: { start: d.range.end, end: d.range.end }, newText: ':' }], preferred: true });
      break;
    case 'missing-separator':
      fixes.push(separatorFix(text, d));
      break;
    case 'patch-disabled':
      fixes.push(patchFix(text, analysis));
      break;
    default:
      break;
  }
  return fixes;
}

const sameDiagnostic = (a: LspDiagnostic, b: LspDiagnostic): boolean =>
  a.code === b.code && a.range.start.line === b.range.start.line && a.range.start.character === b.range.start.character && a.range.end.line === b.range.end.line && a.range.end.character === b.range.end.character;

export function codeActions(doc: TextDocument, analysis: Analysis, params: CodeActionParams): CodeAction[] {
  const only = params.context.only;
  if (only && !only.some((k) => k === CodeActionKind.QuickFix || CodeActionKind.QuickFix.startsWith(`${k}.`) || k === CodeActionKind.Empty)) return [];
  const text = doc.getText();
  const requested = { start: toOffset(doc, params.range.start), end: toOffset(doc, params.range.end) };
  const actions: CodeAction[] = [];
  for (const d of analysis.result.all) {
    if (!overlaps(d.range, requested)) continue;
    const ours = toLspDiagnostic(doc, d);
    const theirs = params.context.diagnostics.find((c) => sameDiagnostic(c, ours)) ?? ours;
    for (const fix of fixesFor(text, analysis, d)) {
      const edits: TextEdit[] = fix.edits.map((e) => ({ range: toRange(doc, e.range), newText: e.newText }));
      const action: CodeAction = { title: fix.title, kind: CodeActionKind.QuickFix, diagnostics: [theirs], edit: { changes: { [doc.uri]: edits } } };
      if (fix.preferred) action.isPreferred = true;
      actions.push(action);
    }
  }
  return actions;
}
