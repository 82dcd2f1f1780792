/**
 * Hover: the catalogue's doc for an option, constraint, setting, field, property type,
 * filter kind or operation kind under the cursor, and a summary of the file's own
 * resources, filters and operations where they are named.
 */
import { MarkupKind, type Hover, type Position } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type * as A from '../grammar/ast.js';
import {
  constraintByName,
  filterKind,
  optionByName,
  propertyType,
  type ValueType,
} from '../grammar/catalogue/index.js';
import { allOperations, type ApiModel } from '../grammar/model.js';
import type { Analysis } from './analysis.js';
import {
  constraintMarkdown,
  fieldMarkdown,
  filterKindMarkdown,
  filterMarkdown,
  graphQlKindMarkdown,
  graphQlOperationMarkdown,
  opKindMarkdown,
  operationMarkdown,
  optionMarkdown,
  propertyTypeMarkdown,
  resourceMarkdown,
  settingMarkdown,
} from './docs.js';
import { expressionHover } from './expressions.js';
import { occurrenceAt, occurrences, type Occurrence } from './occurrences.js';
import { toOffset, toRange } from './ranges.js';
import { walkTyped } from './walk.js';

interface Found {
  markdown: string;
  range: A.Range;
}

const inside = (r: A.Range | undefined, offset: number): r is A.Range =>
  r !== undefined && r.start <= offset && offset <= r.end;

function occurrenceHover(model: ApiModel, occ: Occurrence): string | undefined {
  if (occ.kind === 'resource') {
    const r = model.resources.get(occ.name);
    return r ? resourceMarkdown(r) : undefined;
  }
  if (occ.kind === 'filter') {
    const f = model.filters.get(occ.name);
    return f ? filterMarkdown(model, f) : undefined;
  }
  const op = allOperations(model).find((o) => o.name === occ.name);
  return op ? operationMarkdown(op) : undefined;
}

/** A key inside a typed value (a record's field), with its doc. */
function inValue(value: A.Value | undefined, type: ValueType, offset: number): Found | undefined {
  let found: Found | undefined;
  walkTyped(
    value,
    type,
    () => undefined,
    (k) => {
      if (!found && inside(k.entry.key.range, offset))
        found = {
          markdown: fieldMarkdown(k.entry.key.text, { type: k.type, doc: k.doc ?? '', required: k.required }),
          range: k.entry.key.range,
        };
    },
  );
  return found;
}

function inOptions(entries: A.Entry[], offset: number, on?: string): Found | undefined {
  for (const e of entries) {
    if (!inside(e.range, offset)) continue;
    const spec = optionByName(e.key.text);
    if (!spec) return undefined;
    if (inside(e.key.range, offset)) return { markdown: optionMarkdown(spec, on), range: e.key.range };
    return inValue(e.value, spec.type, offset);
  }
  return undefined;
}

function inConfig(body: A.ObjectValue, prefix: string, offset: number): Found | undefined {
  for (const e of body.entries) {
    if (!inside(e.range, offset)) continue;
    const path = prefix ? `${prefix}.${e.key.text}` : e.key.text;
    if (inside(e.key.range, offset)) {
      const markdown = settingMarkdown(path);
      return markdown ? { markdown, range: e.key.range } : undefined;
    }
    if (e.value?.kind === 'object') return inConfig(e.value, path, offset);
  }
  return undefined;
}

function inResource(model: ApiModel, decl: A.ResourceDecl, offset: number): Found | undefined {
  const options = inOptions(decl.options, offset);
  if (options) return options;
  for (const block of decl.propertiesBlocks) {
    for (const p of block.properties) {
      if (!inside(p.range, offset)) continue;
      const builtin = p.type && propertyType(p.type.name);
      if (builtin && inside(p.type!.nameRange, offset))
        return { markdown: propertyTypeMarkdown(builtin), range: p.type!.nameRange };
      for (const c of p.constraints?.entries ?? []) {
        const spec = constraintByName(c.key.text);
        if (spec && inside(c.key.range, offset)) return { markdown: constraintMarkdown(spec), range: c.key.range };
      }
    }
  }
  const resource = decl.name ? model.resources.get(decl.name.text) : undefined;
  for (const block of decl.operationsBlocks) {
    for (const op of block.operations) {
      if (!inside(op.range, offset)) continue;
      if (inside(op.opKind.range, offset)) {
        const m = resource?.decl === decl ? resource.operations.find((o) => o.decl === op) : undefined;
        const markdown = m && m.known ? operationMarkdown(m) : opKindMarkdown(op.opKind.text);
        return markdown ? { markdown, range: op.opKind.range } : undefined;
      }
      return inOptions(op.body?.entries ?? [], offset, op.opKind.text);
    }
  }
  for (const block of decl.graphqlBlocks) {
    for (const op of block.operations) {
      if (!inside(op.range, offset)) continue;
      if (inside(op.opKind.range, offset)) {
        const m = resource?.decl === decl ? resource.graphql?.find((o) => o.decl === op) : undefined;
        const markdown = m?.known ? graphQlOperationMarkdown(m) : graphQlKindMarkdown(op.opKind.text);
        return markdown ? { markdown, range: op.opKind.range } : undefined;
      }
      return inOptions(op.body?.entries ?? [], offset);
    }
  }
  return undefined;
}

function inFilter(decl: A.FilterDecl, offset: number): Found | undefined {
  const kind = decl.filterKind ? filterKind(decl.filterKind.text) : undefined;
  if (!kind) return undefined;
  if (inside(decl.filterKind!.range, offset))
    return { markdown: filterKindMarkdown(kind), range: decl.filterKind!.range };
  for (const e of decl.body?.entries ?? []) {
    const field = kind.fields[e.key.text];
    if (field && inside(e.key.range, offset)) return { markdown: fieldMarkdown(e.key.text, field), range: e.key.range };
  }
  return undefined;
}

function locate(analysis: Analysis, offset: number): Found | undefined {
  const { model, document } = analysis.result;
  const occ = occurrenceAt(occurrences(analysis.result), offset);
  // An unnamed operation's occurrence is its kind: the kind's own hover says more.
  if (occ && occ.renameable) {
    const markdown = occurrenceHover(model, occ);
    if (markdown) return { markdown, range: occ.range };
  }
  for (const decl of document.declarations) {
    if (!inside(decl.range, offset)) continue;
    switch (decl.kind) {
      case 'resource':
        return inResource(model, decl, offset);
      case 'filter':
        return inFilter(decl, offset);
      case 'config':
        return inConfig(decl.body, '', offset);
      case 'api':
        for (const e of decl.body?.entries ?? []) {
          if (inside(e.key.range, offset))
            return { markdown: `**${e.key.text}** — of the API documentation (string)`, range: e.key.range };
        }
        return undefined;
      case 'mutator':
        if (inside(decl.targetKind?.range, offset)) {
          return {
            markdown:
              '**mutator** — `resource <Name>` or `operation "<operation name>"`: a function `(metadata) => metadata` run once at load.',
            range: decl.targetKind!.range,
          };
        }
        return undefined;
    }
  }
  return undefined;
}

export function hover(doc: TextDocument, analysis: Analysis, position: Position): Hover | null {
  const offset = toOffset(doc, position);
  const found = expressionHover(analysis.result.model, analysis.result.text, offset) ?? locate(analysis, offset);
  if (!found) return null;
  return { contents: { kind: MarkupKind.Markdown, value: found.markdown }, range: toRange(doc, found.range) };
}
