/**
 * Semantic tokens: what the TextMate grammar cannot know. Declared resources and filters and
 * their references (even inside strings), built-in property types, operation kinds and
 * names, property names, catalogue keys and enum words.
 */
import { SemanticTokensBuilder, type SemanticTokens, type SemanticTokensLegend } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type * as A from '../grammar/ast.js';
import {
  GRAPHQL_KINDS,
  OPERATION_KINDS,
  PROPERTY_TYPES,
  filterKind,
  optionByName,
  type ValueType,
} from '../grammar/catalogue/index.js';
import type { Analysis } from './analysis.js';
import { occurrences } from './occurrences.js';
import { walkTyped } from './walk.js';

const TYPES = ['class', 'type', 'function', 'method', 'property', 'enumMember', 'keyword'] as const;
const MODIFIERS = ['declaration', 'defaultLibrary'] as const;
type TokenType = (typeof TYPES)[number];
type Modifier = (typeof MODIFIERS)[number];
const TOKEN_TYPE_OF: Partial<Record<string, TokenType>> = { resource: 'class', filter: 'function' };

export const SEMANTIC_LEGEND: SemanticTokensLegend = { tokenTypes: [...TYPES], tokenModifiers: [...MODIFIERS] };

interface Tok {
  range: A.Range;
  type: TokenType;
  modifiers: Modifier[];
}

const BUILTIN_TYPES = new Set(PROPERTY_TYPES.map((t) => t.name));
const KINDS = new Set<string>(OPERATION_KINDS);
const GRAPHQL_KIND_NAMES = new Set<string>(GRAPHQL_KINDS);

function collect(analysis: Analysis): Tok[] {
  const { document, model } = analysis.result;
  const out: Tok[] = [];
  const add = (range: A.Range | undefined, type: TokenType, ...modifiers: Modifier[]): void => {
    if (range && range.end > range.start) out.push({ range, type, modifiers });
  };
  const typedValue = (value: A.Value | undefined, type: ValueType): void =>
    walkTyped(
      value,
      type,
      (v, t) => {
        if (v.kind === 'ident' && t.kind === 'enum') add(v.range, 'enumMember');
      },
      (k) => add(k.entry.key.range, 'property'),
    );
  for (const occ of occurrences(analysis.result)) {
    const declared =
      (occ.kind !== 'resource' || model.resources.has(occ.name)) &&
      (occ.kind !== 'filter' || model.filters.has(occ.name));
    if (!declared || !occ.renameable) continue;
    const type: TokenType = TOKEN_TYPE_OF[occ.kind] ?? 'method';
    add(occ.range, type, ...(occ.declaration ? (['declaration'] as Modifier[]) : []));
  }
  const options = (entries: A.Entry[]): void => {
    for (const e of entries) {
      const spec = optionByName(e.key.text);
      if (!spec) continue;
      add(e.key.range, 'property', 'defaultLibrary');
      typedValue(e.value, spec.type);
    }
  };
  for (const decl of document.declarations) {
    if (decl.kind === 'filter') {
      const kind = decl.filterKind && filterKind(decl.filterKind.text);
      if (kind) add(decl.filterKind!.range, 'type', 'defaultLibrary');
      if (kind && decl.body) typedValue(decl.body, { kind: 'record', fields: kind.fields });
    } else if (decl.kind === 'mutator') {
      add(decl.targetKind?.range, 'keyword');
    } else if (decl.kind === 'resource') {
      options(decl.options);
      for (const block of decl.propertiesBlocks) {
        for (const p of block.properties) {
          add(p.name.range, 'property', 'declaration');
          if (p.type && BUILTIN_TYPES.has(p.type.name)) add(p.type.nameRange, 'type', 'defaultLibrary');
          for (const c of p.constraints?.entries ?? []) add(c.key.range, 'property', 'defaultLibrary');
        }
      }
      for (const block of decl.operationsBlocks) {
        for (const op of block.operations) {
          if (KINDS.has(op.opKind.text)) add(op.opKind.range, 'method', 'defaultLibrary');
          options(op.body?.entries ?? []);
        }
      }
      for (const block of decl.graphqlBlocks) {
        for (const op of block.operations) {
          if (GRAPHQL_KIND_NAMES.has(op.opKind.text)) add(op.opKind.range, 'method', 'defaultLibrary');
          options(op.body?.entries ?? []);
        }
      }
    }
  }
  return out;
}

export function semanticTokens(doc: TextDocument, analysis: Analysis): SemanticTokens {
  const tokens = collect(analysis).sort((a, b) => a.range.start - b.range.start || b.range.end - a.range.end);
  const builder = new SemanticTokensBuilder();
  let lastEnd = -1;
  for (const t of tokens) {
    if (t.range.start < lastEnd) continue; // one token per piece of text
    const start = doc.positionAt(t.range.start);
    const end = doc.positionAt(t.range.end);
    if (end.line !== start.line) continue; // tokens may not span lines
    const modifiers = t.modifiers.reduce((bits, m) => bits | (1 << MODIFIERS.indexOf(m)), 0);
    builder.push(start.line, start.character, end.character - start.character, TYPES.indexOf(t.type), modifiers);
    lastEnd = t.range.end;
  }
  return builder.build();
}
