/** `apidsl lsp --stdio | --node-ipc`: the language server, for editors. */
import { createConnection, ProposedFeatures } from 'vscode-languageserver/node';
import { startServer } from '../lsp/server.js';

export function runLsp(opts: { stdio?: boolean; nodeIpc?: boolean }, version: string): number {
  if (!opts.stdio && !opts.nodeIpc) {
    process.stderr.write('apidsl lsp: choose a transport: --stdio or --node-ipc\n');
    return 1;
  }
  // createConnection reads the transport from the command line (--stdio / --node-ipc); over
  // stdio it also sends console output to the client's log rather than into the protocol.
  startServer(createConnection(ProposedFeatures.all), { version });
  return 0;
}
