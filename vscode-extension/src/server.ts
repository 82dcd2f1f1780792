/**
 * The server entry of the extension bundle: the same server as `apidsl lsp`, on the
 * transport the client chose (`--node-ipc`, `--stdio` or `--socket=N` on the command line).
 */
import { createConnection, ProposedFeatures } from 'vscode-languageserver/node';
import { startServer } from '../../lsp/server.js';

startServer(createConnection(ProposedFeatures.all));
