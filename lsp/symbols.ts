/**
 * The outline: api, config (with its settings), filters, resources (with their properties
 * and operations) and mutators.
 */
import { SymbolKind, type DocumentSymbol } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type * as A from '../grammar/ast.js';
import type { Analysis } from './analysis.js';
import { toRange, within } from './ranges.js';

function symbol(
  doc: TextDocument,
  name: string,
  kind: SymbolKind,
  range: A.Range,
  selection: A.Range | undefined,
  detail?: string,
  children?: DocumentSymbol[],
): DocumentSymbol {
  const full = toRange(doc, range);
  let sel = toRange(doc, selection ?? range);
  if (!within(sel, full)) sel = full;
  const s: DocumentSymbol = { name: name.trim() === '' ? '?' : name, kind, range: full, selectionRange: sel };
  if (detail) s.detail = detail;
  if (children && children.length) s.children = children;
  return s;
}

function settings(doc: TextDocument, body: A.ObjectValue): DocumentSymbol[] {
  return body.entries.map((e) =>
    e.value?.kind === 'object' && e.block
      ? symbol(doc, e.key.text, SymbolKind.Namespace, e.range, e.key.range, undefined, settings(doc, e.value))
      : symbol(doc, e.key.text, SymbolKind.Property, e.range, e.key.range),
  );
}

export function documentSymbols(doc: TextDocument, analysis: Analysis): DocumentSymbol[] {
  const { document, model } = analysis.result;
  const out: DocumentSymbol[] = [];
  for (const decl of document.declarations) {
    switch (decl.kind) {
      case 'api':
        out.push(
          symbol(
            doc,
            `api ${decl.title ? JSON.stringify(decl.title.value) : ''}`,
            SymbolKind.Module,
            decl.range,
            decl.title?.range,
          ),
        );
        break;
      case 'config':
        out.push(
          symbol(doc, 'config', SymbolKind.Namespace, decl.range, undefined, undefined, settings(doc, decl.body)),
        );
        break;
      case 'filter':
        out.push(
          symbol(
            doc,
            decl.name?.text ?? 'filter',
            SymbolKind.Function,
            decl.range,
            decl.name?.range,
            decl.filterKind?.text,
          ),
        );
        break;
      case 'mutator':
        out.push(
          symbol(
            doc,
            `mutator ${decl.targetKind?.text ?? ''} ${decl.target?.text ?? ''}`,
            SymbolKind.Event,
            decl.range,
            decl.target?.range,
            decl.ref?.value,
          ),
        );
        break;
      case 'resource': {
        const resource = decl.name ? model.resources.get(decl.name.text) : undefined;
        const children: DocumentSymbol[] = [];
        for (const block of decl.propertiesBlocks) {
          for (const p of block.properties) {
            const type = p.type ? `${p.type.name}${p.type.array ? '[]' : ''}` : undefined;
            children.push(symbol(doc, p.name.text, SymbolKind.Property, p.range, p.name.range, type));
          }
        }
        for (const block of decl.operationsBlocks) {
          for (const op of block.operations) {
            const m = resource?.decl === decl ? resource.operations.find((o) => o.decl === op) : undefined;
            const detail = m ? `${m.method ?? '?'} ${m.path}` : undefined;
            const name = op.name ? `${op.opKind.text} ${op.name.text}` : op.opKind.text;
            children.push(symbol(doc, name, SymbolKind.Method, op.range, op.name?.range ?? op.opKind.range, detail));
          }
        }
        for (const block of decl.graphqlBlocks) {
          for (const op of block.operations) {
            const m = resource?.decl === decl ? resource.graphql?.find((o) => o.decl === op) : undefined;
            const name = op.name ? `${op.opKind.text} ${op.name.text}` : op.opKind.text;
            const range = op.name?.range ?? op.opKind.range;
            children.push(symbol(doc, name, SymbolKind.Function, op.range, range, m?.fieldName));
          }
        }
        const detail = resource?.decl === decl ? resource.collectionPath : undefined;
        out.push(
          symbol(doc, decl.name?.text ?? 'resource', SymbolKind.Class, decl.range, decl.name?.range, detail, children),
        );
        break;
      }
    }
  }
  return out;
}
