/**
 * A minimal LSP client for the tests: spawns the built server as an editor would
 * (`node bin/apidsl.js lsp --stdio`) and talks to it with vscode-languageserver-protocol.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { TextDocument } from 'vscode-languageserver-textdocument';
import {
  createProtocolConnection,
  DidChangeTextDocumentNotification,
  DidCloseTextDocumentNotification,
  DidOpenTextDocumentNotification,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  LogMessageNotification,
  PublishDiagnosticsNotification,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  type InitializeResult,
  type LogMessageParams,
  type ProtocolConnection,
  type PublishDiagnosticsParams,
  type TextDocumentContentChangeEvent,
} from 'vscode-languageserver-protocol/node';
import { fromRoot } from '../support/paths.js';

export interface Received {
  params: PublishDiagnosticsParams;
  at: number;
}

export class LspClient {
  readonly published: Received[] = [];
  readonly stderr: string[] = [];
  /** The server's log messages (window/logMessage): a handler that failed logs here. */
  readonly logs: string[] = [];
  private listeners: (() => void)[] = [];
  exitCode: number | null | undefined;
  initializeResult!: InitializeResult;

  private constructor(
    readonly proc: ChildProcessWithoutNullStreams,
    readonly connection: ProtocolConnection,
  ) {
    connection.onNotification(PublishDiagnosticsNotification.type, (params) => {
      this.published.push({ params, at: performance.now() });
      for (const l of this.listeners) l();
    });
    connection.onNotification(LogMessageNotification.type, (p: LogMessageParams) => {
      this.logs.push(p.message);
    });
    proc.stderr.on('data', (d: Buffer) => this.stderr.push(d.toString()));
    proc.on('exit', (code) => (this.exitCode = code));
  }

  /** Starts `node bin/apidsl.js lsp --stdio`, or another server script given its arguments. */
  static async start(args: string[] = [fromRoot('bin/apidsl.js'), 'lsp', '--stdio']): Promise<LspClient> {
    const proc = spawn(process.execPath, args, { stdio: 'pipe' });
    const connection = createProtocolConnection(
      new StreamMessageReader(proc.stdout),
      new StreamMessageWriter(proc.stdin),
    );
    const client = new LspClient(proc, connection);
    connection.listen();
    client.initializeResult = await connection.sendRequest(InitializeRequest.type, {
      processId: process.pid,
      rootUri: null,
      capabilities: { textDocument: { publishDiagnostics: { versionSupport: true } } },
    });
    await connection.sendNotification(InitializedNotification.type, {});
    return client;
  }

  get alive(): boolean {
    return this.exitCode === undefined;
  }

  async open(uri: string, text: string, version = 1): Promise<void> {
    await this.connection.sendNotification(DidOpenTextDocumentNotification.type, {
      textDocument: { uri, languageId: 'apidsl', version, text },
    });
  }

  async change(uri: string, version: number, changes: TextDocumentContentChangeEvent[]): Promise<void> {
    await this.connection.sendNotification(DidChangeTextDocumentNotification.type, {
      textDocument: { uri, version },
      contentChanges: changes,
    });
  }

  async close(uri: string): Promise<void> {
    await this.connection.sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri } });
  }

  /** The first diagnostics published for a document at a version (or any version with -1). */
  diagnostics(uri: string, version: number, timeoutMs = 10_000): Promise<Received> {
    const find = (): Received | undefined =>
      this.published.find((r) => r.params.uri === uri && (version === -1 || r.params.version === version));
    return new Promise((resolve, reject) => {
      const found = find();
      if (found) return resolve(found);
      const timer = setTimeout(() => {
        this.listeners = this.listeners.filter((l) => l !== listener);
        reject(
          new Error(`no diagnostics for ${uri} v${version} within ${timeoutMs} ms; stderr: ${this.stderr.join('')}`),
        );
      }, timeoutMs);
      const listener = (): void => {
        const r = find();
        if (!r) return;
        clearTimeout(timer);
        this.listeners = this.listeners.filter((l) => l !== listener);
        resolve(r);
      };
      this.listeners.push(listener);
    });
  }

  async stop(): Promise<void> {
    if (!this.alive) return;
    const exited = new Promise<void>((resolve) => this.proc.once('exit', () => resolve()));
    await this.connection.sendRequest(ShutdownRequest.type);
    await this.connection.sendNotification(ExitNotification.type);
    await exited;
    this.connection.dispose();
  }
}

/** A text with one `|` cursor marker: the text without it, and the marker's position. */
export function withCursor(marked: string): {
  text: string;
  offset: number;
  position: { line: number; character: number };
} {
  // The first `|` outside the leading comment lines (which may show snippets with `|` choices).
  const offset = marked.search(/^(?!\/\/).*\|/m) < 0 ? -1 : marked.indexOf('|', marked.search(/^(?!\/\/).*\|/m));
  if (offset < 0) throw new Error('no | cursor marker');
  const text = marked.slice(0, offset) + marked.slice(offset + 1);
  return { text, offset, position: TextDocument.create('x', 'apidsl', 0, text).positionAt(offset) };
}

let counter = 0;
/** A fresh document URI (file: scheme, in a folder that does not exist). */
export const freshUri = (name = 'doc'): string => `file:///tmp/apidsl-lsp-test/${name}-${++counter}.api`;
