/**
 * Diagnostics: the checker's findings as LSP diagnostics, published with the document
 * version they were computed for. A change is checked at once, unless changes arrive faster
 * than the document's last analysis took: then they are coalesced, and checked once they
 * pause for that long (an adaptive debounce: no fixed delay while the server keeps up). A
 * result whose version is no longer the document's when it is ready is dropped, so an editor
 * never sees diagnostics of an outdated text.
 */
import {
  DiagnosticSeverity,
  DiagnosticTag,
  type Connection,
  type Diagnostic as LspDiagnostic,
} from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { Diagnostic } from '../grammar/diagnostics.js';
import type { DocumentStore } from './documents.js';
import { toRange } from './ranges.js';

const SEVERITY: Partial<Record<Diagnostic['severity'], DiagnosticSeverity>> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
};

/** What a diagnostic carries for code actions (LSP `data`). */
export interface DiagnosticData {
  suggestion?: string;
}

export function toLspDiagnostic(doc: TextDocument, d: Diagnostic): LspDiagnostic {
  const out: LspDiagnostic = {
    range: toRange(doc, d.range),
    severity: SEVERITY[d.severity] ?? DiagnosticSeverity.Hint,
    code: d.code,
    source: 'apidsl',
    message: d.message,
  };
  if (d.code === 'option-ineffective') out.tags = [DiagnosticTag.Unnecessary];
  if (d.suggestion !== undefined) out.data = { suggestion: d.suggestion } satisfies DiagnosticData;
  return out;
}

export class DiagnosticsPublisher {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** Per document: when the last change arrived, and how long its last analysis took (ms). */
  private readonly lastChange = new Map<string, number>();
  private readonly analysisMillis = new Map<string, number>();

  constructor(
    private readonly connection: Pick<Connection, 'sendDiagnostics'>,
    private readonly store: Pick<DocumentStore, 'get' | 'analysis'>,
    private readonly log: (message: string) => void,
  ) {}

  /**
   * Validates now, or, when this change follows the previous one by less than an analysis takes,
   * once the changes pause for that long. `immediate` (on open) never waits.
   */
  schedule(uri: string, immediate = false): void {
    const now = performance.now();
    const previous = this.lastChange.get(uri);
    this.lastChange.set(uri, now);
    const cost = this.analysisMillis.get(uri) ?? 0;
    const wait = !immediate && previous !== undefined && now - previous < cost ? cost : 0;
    clearTimeout(this.timers.get(uri));
    const run = (): void => {
      this.timers.delete(uri);
      void this.publish(uri);
    };
    this.timers.set(uri, setTimeout(run, wait));
  }

  /** Clears a closed document's diagnostics. */
  clear(uri: string): void {
    clearTimeout(this.timers.get(uri));
    this.timers.delete(uri);
    this.lastChange.delete(uri);
    this.analysisMillis.delete(uri);
    void this.connection.sendDiagnostics({ uri, diagnostics: [] });
  }

  private async publish(uri: string): Promise<void> {
    try {
      const doc = this.store.get(uri);
      const analysis = this.store.analysis(uri);
      if (!doc || !analysis) return;
      this.analysisMillis.set(uri, analysis.millis);
      const version = analysis.version;
      const diagnostics = analysis.result.all.map((d) => toLspDiagnostic(doc, d));
      // Let changes that arrived meanwhile be applied (the protocol library handles one queued
      // message per tick), then publish only if this is still the document's version.
      for (let i = 0; i < 2; i++) await new Promise((resolve) => setImmediate(resolve));
      if (this.store.get(uri)?.version !== version) return;
      await this.connection.sendDiagnostics({ uri, version, diagnostics });
    } catch (e) {
      this.log(`diagnostics of ${uri} failed: ${(e as Error).stack ?? String(e)}`);
      // Never leave the diagnostics of an earlier text on screen: say that this one could not be checked.
      const doc = this.store.get(uri);
      if (!doc) return;
      const message = `apidsl could not check this text (internal error: ${(e as Error).message}); please report it`;
      const failed: LspDiagnostic = {
        range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
        severity: DiagnosticSeverity.Error,
        source: 'apidsl',
        message,
      };
      await this.connection
        .sendDiagnostics({ uri, version: doc.version, diagnostics: [failed] })
        .catch(() => undefined);
    }
  }
}
