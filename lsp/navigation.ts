/**
 * Go to definition, find references, document highlights and rename, for filters,
 * resources and operations (mutator targets), over the occurrence index.
 */
import {
  DocumentHighlightKind,
  ResponseError,
  type DocumentHighlight,
  type Location,
  type Position,
  type Range,
  type TextEdit,
  type WorkspaceEdit,
} from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type * as A from '../grammar/ast.js';
import type { Analysis } from './analysis.js';
import { occurrenceAt, occurrences, sameSymbol, type Occurrence } from './occurrences.js';
import { toOffset, toRange } from './ranges.js';

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

function target(
  doc: TextDocument,
  analysis: Analysis,
  position: Position,
): { all: Occurrence[]; at: Occurrence } | undefined {
  const all = occurrences(analysis.result);
  const at = occurrenceAt(all, toOffset(doc, position));
  return at ? { all, at } : undefined;
}

/** Where an operation without a declaration of its own comes from: its resource's name. */
function implicitOperation(analysis: Analysis, name: string): A.Range | undefined {
  for (const r of analysis.result.model.resources.values()) {
    if (r.operations.some((o) => !o.decl && o.name === name)) return r.decl.name?.range;
  }
  return undefined;
}

export function definition(doc: TextDocument, analysis: Analysis, position: Position): Location[] {
  const found = target(doc, analysis, position);
  if (!found) return [];
  const decls = sameSymbol(found.all, found.at).filter((o) => o.declaration);
  const ranges = decls.map((o) => o.range);
  if (ranges.length === 0 && found.at.kind === 'operation') {
    const implicit = implicitOperation(analysis, found.at.name);
    if (implicit) ranges.push(implicit);
  }
  return ranges.map((r) => ({ uri: doc.uri, range: toRange(doc, r) }));
}

export function references(
  doc: TextDocument,
  analysis: Analysis,
  position: Position,
  includeDeclaration: boolean,
): Location[] {
  const found = target(doc, analysis, position);
  if (!found) return [];
  return sameSymbol(found.all, found.at)
    .filter((o) => includeDeclaration || !o.declaration)
    .map((o) => ({ uri: doc.uri, range: toRange(doc, o.range) }));
}

export function highlights(doc: TextDocument, analysis: Analysis, position: Position): DocumentHighlight[] {
  const found = target(doc, analysis, position);
  if (!found) return [];
  return sameSymbol(found.all, found.at).map((o) => ({
    range: toRange(doc, o.range),
    kind: o.declaration ? DocumentHighlightKind.Write : DocumentHighlightKind.Read,
  }));
}

/** Filters and resources can be renamed (operation names are strings without a declaration kind of their own). */
function renameTarget(
  doc: TextDocument,
  analysis: Analysis,
  position: Position,
): { all: Occurrence[]; at: Occurrence } | undefined {
  const found = target(doc, analysis, position);
  if (!found || found.at.kind === 'operation') return undefined;
  const hasDeclaration = sameSymbol(found.all, found.at).some((o) => o.declaration);
  return hasDeclaration ? found : undefined;
}

export function prepareRename(
  doc: TextDocument,
  analysis: Analysis,
  position: Position,
): { range: Range; placeholder: string } | null {
  const found = renameTarget(doc, analysis, position);
  if (!found) return null;
  return { range: toRange(doc, found.at.nameRange), placeholder: found.at.name };
}

export function rename(
  doc: TextDocument,
  analysis: Analysis,
  position: Position,
  newName: string,
): WorkspaceEdit | null {
  const found = renameTarget(doc, analysis, position);
  if (!found) return null;
  if (!IDENTIFIER.test(newName)) {
    throw new ResponseError(
      -32602,
      `'${newName}' is not a valid ${found.at.kind} name: use letters, digits and _, not starting with a digit`,
    );
  }
  const taken = found.all.some(
    (o) => o.kind === found.at.kind && o.declaration && o.name === newName && newName !== found.at.name,
  );
  if (taken) throw new ResponseError(-32602, `a ${found.at.kind} named '${newName}' already exists`);
  const edits: TextEdit[] = sameSymbol(found.all, found.at)
    .filter((o) => o.renameable)
    .map((o) => ({ range: toRange(doc, o.nameRange), newText: newName }));
  return { changes: { [doc.uri]: edits } };
}
