/**
 * The language server's wiring: capabilities, and one thin handler per request over the
 * document store and the feature modules. Every handler is guarded: whatever the text, a
 * failure is logged and answered with an empty result, never a crash.
 */
import {
  CodeActionKind,
  ResponseError,
  TextDocumentSyncKind,
  type Connection,
  type InitializeResult,
  type TextDocumentPositionParams,
} from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { Analysis } from './analysis.js';
import { codeActions } from './code-actions.js';
import { completions } from './completion/index.js';
import { DiagnosticsPublisher } from './diagnostics.js';
import { DocumentStore } from './documents.js';
import { foldingRanges } from './folding.js';
import { formatting } from './formatting.js';
import { hover } from './hover.js';
import { definition, highlights, prepareRename, references, rename } from './navigation.js';
import { SEMANTIC_LEGEND, semanticTokens } from './semantic-tokens.js';
import { documentSymbols } from './symbols.js';

export interface ServerOptions {
  version?: string;
}

/** What the server can do, answered to the client's `initialize`. */
const initializeResult = (options: ServerOptions): InitializeResult => ({
  capabilities: {
    textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental },
    completionProvider: { triggerCharacters: [':', '"', '[', '{', ','] },
    hoverProvider: true,
    definitionProvider: true,
    referencesProvider: true,
    documentHighlightProvider: true,
    renameProvider: { prepareProvider: true },
    documentSymbolProvider: true,
    foldingRangeProvider: true,
    documentFormattingProvider: true,
    semanticTokensProvider: { legend: SEMANTIC_LEGEND, full: true },
    codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
  },
  serverInfo: { name: 'apidsl', ...(options.version ? { version: options.version } : {}) },
});

export function startServer(connection: Connection, options: ServerOptions = {}): DocumentStore {
  const store = new DocumentStore();
  const log = (message: string): void => connection.console.error(message);
  const publisher = new DiagnosticsPublisher(connection, store, log);

  /** Runs a handler; errors other than deliberate response errors become `fallback`. */
  const guard =
    <P, R>(name: string, fallback: R, fn: (params: P) => R) =>
    (params: P): R => {
      try {
        return fn(params);
      } catch (e) {
        if (e instanceof ResponseError) throw e;
        log(`${name} failed: ${(e as Error).stack ?? String(e)}`);
        return fallback;
      }
    };

  /** The document and its current analysis, for a request about a position or a document. */
  const withDoc = <P extends { textDocument: { uri: string } }, R>(
    name: string,
    fallback: R,
    fn: (doc: TextDocument, analysis: Analysis, params: P) => R,
  ) =>
    guard<P, R>(name, fallback, (params) => {
      const doc = store.get(params.textDocument.uri);
      const analysis = store.analysis(params.textDocument.uri);
      return doc && analysis ? fn(doc, analysis, params) : fallback;
    });

  connection.onInitialize(() => initializeResult(options));

  store.documents.onDidOpen((e) => publisher.schedule(e.document.uri, true));
  store.documents.onDidChangeContent((e) => publisher.schedule(e.document.uri));
  store.documents.onDidClose((e) => publisher.clear(e.document.uri));

  connection.onCompletion(
    guard('completion', [], (p: TextDocumentPositionParams) => {
      const doc = store.get(p.textDocument.uri);
      return doc ? completions(doc, store.analysis(p.textDocument.uri), p.position) : [];
    }),
  );
  connection.onHover(withDoc('hover', null, (doc, a, p: TextDocumentPositionParams) => hover(doc, a, p.position)));
  connection.onDefinition(
    withDoc('definition', [], (doc, a, p: TextDocumentPositionParams) => definition(doc, a, p.position)),
  );
  connection.onReferences(
    withDoc('references', [], (doc, a, p) => references(doc, a, p.position, p.context.includeDeclaration)),
  );
  connection.onDocumentHighlight(
    withDoc('highlight', [], (doc, a, p: TextDocumentPositionParams) => highlights(doc, a, p.position)),
  );
  connection.onPrepareRename(withDoc('prepareRename', null, (doc, a, p) => prepareRename(doc, a, p.position)));
  connection.onRenameRequest(withDoc('rename', null, (doc, a, p) => rename(doc, a, p.position, p.newName)));
  connection.onDocumentSymbol(withDoc('documentSymbol', [], (doc, a) => documentSymbols(doc, a)));
  connection.onFoldingRanges(
    guard('foldingRange', [], (p: { textDocument: { uri: string } }) => {
      const doc = store.get(p.textDocument.uri);
      return doc ? foldingRanges(doc) : [];
    }),
  );
  connection.onDocumentFormatting(
    guard('formatting', [], (p: { textDocument: { uri: string } }) => {
      const doc = store.get(p.textDocument.uri);
      return doc ? formatting(doc) : [];
    }),
  );
  connection.languages.semanticTokens.on(withDoc('semanticTokens', { data: [] }, (doc, a) => semanticTokens(doc, a)));
  connection.onCodeAction(withDoc('codeAction', [], (doc, a, p) => codeActions(doc, a, p)));

  store.listen(connection);
  connection.listen();
  return store;
}
