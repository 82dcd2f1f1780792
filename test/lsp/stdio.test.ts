/**
 * The server over stdio, as an editor drives it: initialize, open, incremental changes,
 * diagnostics published with their document version (never an older one after a newer one),
 * UTF-16 positions after multibyte text, close.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { fork } from 'node:child_process';
import {
  createProtocolConnection,
  DiagnosticSeverity,
  DidOpenTextDocumentNotification,
  ExitNotification,
  InitializeRequest,
  IPCMessageReader,
  IPCMessageWriter,
  PublishDiagnosticsNotification,
  ShutdownRequest,
  TextDocumentSyncKind,
  type PublishDiagnosticsParams,
} from 'vscode-languageserver-protocol/node';
import { runCli } from '../support/cli.js';
import { fromRoot } from '../support/paths.js';
import { freshUri, LspClient } from './client.js';

const bookstore = readFileSync(fromRoot('examples/bookstore.api'), 'utf8');

describe('apidsl lsp --stdio', () => {
  let client: LspClient;
  before(async () => {
    client = await LspClient.start();
  });
  after(async () => {
    await client?.stop();
  });

  it('initializes with incremental sync and every feature', () => {
    const caps = client.initializeResult.capabilities;
    expect(client.initializeResult.serverInfo?.name).to.equal('apidsl');
    expect(caps.textDocumentSync).to.deep.include({ openClose: true, change: TextDocumentSyncKind.Incremental });
    for (const cap of [
      'completionProvider',
      'hoverProvider',
      'definitionProvider',
      'referencesProvider',
      'renameProvider',
      'documentSymbolProvider',
      'foldingRangeProvider',
      'documentFormattingProvider',
      'semanticTokensProvider',
      'codeActionProvider',
    ] as const) {
      expect(caps[cap], cap).to.not.equal(undefined);
    }
  });

  it('publishes no diagnostics for the bookstore, with the opened version', async () => {
    const uri = freshUri('bookstore');
    await client.open(uri, bookstore, 7);
    const { params } = await client.diagnostics(uri, 7);
    expect(params.diagnostics).to.deep.equal([]);
  });

  it('publishes diagnostics with code, severity, source and the suggestion', async () => {
    const uri = freshUri('typo');
    await client.open(
      uri,
      'resource Book {\n  paginationItemPerPage: 10\n  properties { id: int }\n  operations { Get, Patch }\n}\n',
    );
    const { params } = await client.diagnostics(uri, 1);
    const [typo, patch] = params.diagnostics;
    expect(typo).to.deep.include({
      code: 'unknown-option',
      severity: DiagnosticSeverity.Error,
      source: 'apidsl',
      data: { suggestion: 'paginationItemsPerPage' },
    });
    expect(typo.range).to.deep.equal({ start: { line: 1, character: 2 }, end: { line: 1, character: 23 } });
    expect(patch).to.deep.include({ code: 'patch-disabled', severity: DiagnosticSeverity.Warning });
  });

  it('applies incremental changes and publishes for the new version', async () => {
    const uri = freshUri('incremental');
    await client.open(uri, 'resource Book {\n  paginationItemPerPage: 10\n  properties { id: int }\n}\n');
    expect((await client.diagnostics(uri, 1)).params.diagnostics).to.have.length(1);
    // Insert the missing "s": paginationItem|PerPage
    await client.change(uri, 2, [
      { range: { start: { line: 1, character: 16 }, end: { line: 1, character: 16 } }, text: 's' },
    ]);
    expect((await client.diagnostics(uri, 2)).params.diagnostics).to.deep.equal([]);
    // Break it again, with two edits in one change.
    await client.change(uri, 3, [
      { range: { start: { line: 2, character: 19 }, end: { line: 2, character: 22 } }, text: 'integer' },
      { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: '// a comment\n' },
    ]);
    const { params } = await client.diagnostics(uri, 3);
    const unknown = params.diagnostics.find((d) => d.code === 'unknown-type');
    expect(unknown?.range).to.deep.equal({ start: { line: 3, character: 19 }, end: { line: 3, character: 26 } });
  });

  it("never publishes an older version after a newer one, and each version with its own text's diagnostics", async () => {
    const uri = freshUri('outdated');
    const texts: Record<number, string> = {
      1: 'resource Book {\n  properties { id: int }\n}\n',
      2: 'resource Book {\n  properties { id: intt }\n}\n',
      3: 'resource Book {\n  properties { id: innt }\n}\n',
      4: 'resource Book {\n  propertie { id: int }\n}\n',
    };
    const expected: Record<number, string[]> = {
      1: [],
      2: ['unknown-type', 'identifier-issue'],
      3: ['unknown-type', 'identifier-issue'],
      4: ['unknown-option'],
    };
    await client.open(uri, texts[1]);
    await client.diagnostics(uri, 1);
    // Three quick changes. Which of 2 and 3 the server still checks depends on when it reads them (a result whose
    // version is outdated when it is ready is dropped: diagnostics-publisher.test.ts shows that step by itself);
    // what an editor sees must hold whatever the timing.
    for (const version of [2, 3, 4]) await client.change(uri, version, [{ text: texts[version] }]);
    const last = await client.diagnostics(uri, 4);
    expect(last.params.diagnostics.map((d) => d.code)).to.deep.equal(expected[4]);
    await new Promise((r) => setTimeout(r, 200));
    const published = client.published.filter((r) => r.params.uri === uri).map((r) => r.params);
    const versions = published.map((p) => p.version!);
    expect(versions[versions.length - 1]).to.equal(4);
    expect(versions).to.deep.equal([...new Set(versions)].sort((a, b) => a - b));
    for (const p of published)
      expect(
        p.diagnostics.map((d) => d.code),
        `version ${p.version}`,
      ).to.deep.equal(expected[p.version!]);
  });

  it('counts positions in UTF-16 code units after multibyte text', async () => {
    const uri = freshUri('emoji');
    const text = 'resource Book { description: "📚📚 é", paginatonEnabled: true\n  properties { id: int }\n}\n';
    await client.open(uri, text);
    const { params } = await client.diagnostics(uri, 1);
    const d = params.diagnostics.find((x) => x.code === 'unknown-option')!;
    // "📚" is two UTF-16 code units: the key starts at character 39, not 37.
    const start = text.indexOf('paginatonEnabled');
    expect(d.range.start).to.deep.equal({ line: 0, character: start });
    expect(d.range.end).to.deep.equal({ line: 0, character: start + 'paginatonEnabled'.length });
    // An edit placed after the emoji lands where the editor means it: paginat|onEnabled.
    await client.change(uri, 2, [
      { range: { start: { line: 0, character: start + 7 }, end: { line: 0, character: start + 7 } }, text: 'i' },
    ]);
    expect((await client.diagnostics(uri, 2)).params.diagnostics).to.deep.equal([]);
  });

  it('clears the diagnostics of a closed document', async () => {
    const uri = freshUri('closed');
    await client.open(uri, 'resource { }\n');
    expect((await client.diagnostics(uri, 1)).params.diagnostics).to.not.be.empty;
    const before = client.published.length;
    await client.close(uri);
    const after = (): typeof client.published => client.published.slice(before).filter((r) => r.params.uri === uri);
    for (const deadline = Date.now() + 10_000; after().length === 0 && Date.now() < deadline;)
      await new Promise((r) => setTimeout(r, 20));
    expect(after().map((r) => r.params.diagnostics)).to.deep.equal([[]]);
  });

  it('publishes only valid ranges, on broken text too', async () => {
    const uri = freshUri('broken');
    const text =
      'resource Book {\n  properties {\n    id: int { identifier: \n  operations { Get { paginationType: "cu\n';
    await client.open(uri, text);
    const { params } = await client.diagnostics(uri, 1);
    expect(params.diagnostics).to.not.be.empty;
    const lines = text.split('\n');
    for (const d of params.diagnostics) {
      for (const p of [d.range.start, d.range.end]) {
        expect(p.line).to.be.within(0, lines.length - 1);
        expect(p.character).to.be.within(0, lines[p.line].length);
      }
    }
  });

  it('exits 0 after shutdown and exit', async () => {
    const c = await LspClient.start();
    await c.stop();
    expect(c.exitCode).to.equal(0);
  });

  it('also speaks over Node IPC (--node-ipc, as the VS Code client starts it)', async () => {
    const child = fork(fromRoot('bin/apidsl.js'), ['lsp', '--node-ipc'], {
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    const connection = createProtocolConnection(new IPCMessageReader(child), new IPCMessageWriter(child));
    connection.listen();
    const published = new Promise<PublishDiagnosticsParams>((resolve) =>
      connection.onNotification(PublishDiagnosticsNotification.type, resolve),
    );
    const init = await connection.sendRequest(InitializeRequest.type, {
      processId: process.pid,
      rootUri: null,
      capabilities: {},
    });
    expect(init.capabilities.hoverProvider).to.equal(true);
    await connection.sendNotification(DidOpenTextDocumentNotification.type, {
      textDocument: { uri: freshUri('ipc'), languageId: 'apidsl', version: 1, text: 'resorce Book {}\n' },
    });
    expect((await published).diagnostics.map((d) => d.code)).to.deep.equal(['unknown-declaration']);
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    await connection.sendRequest(ShutdownRequest.type);
    await connection.sendNotification(ExitNotification.type);
    expect(await exited).to.equal(0);
    connection.dispose();
  });

  it('asks for a transport when given none', () => {
    const r = runCli(['lsp']);
    expect(r.status).to.equal(1);
    expect(r.stderr).to.include('--stdio or --node-ipc');
  });
});
