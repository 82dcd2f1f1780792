/**
 * The open documents (kept in sync incrementally by `TextDocuments`) and their analyses,
 * cached per version; each analysis starts from the one before it (see analysis.ts).
 */
import { TextDocuments, type Connection } from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { analyse, type Analysis } from './analysis.js';

export class DocumentStore {
  readonly documents = new TextDocuments(TextDocument);
  private readonly analyses = new Map<string, Analysis>();

  constructor() {
    this.documents.onDidClose((e) => this.analyses.delete(e.document.uri));
  }

  listen(connection: Connection): void {
    this.documents.listen(connection);
  }

  get(uri: string): TextDocument | undefined {
    return this.documents.get(uri);
  }

  /** The analysis of the document's current version (computed once per version). */
  analysis(uri: string): Analysis | undefined {
    const doc = this.documents.get(uri);
    if (!doc) return undefined;
    const cached = this.analyses.get(uri);
    if (cached && cached.version === doc.version) return cached;
    const fresh = analyse(doc, cached?.result);
    this.analyses.set(uri, fresh);
    return fresh;
  }
}
