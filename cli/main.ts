#!/usr/bin/env node
/** The `apidsl` command: one subcommand per job, each in its own module. */
import { Argument, Command, Option } from 'commander';
import { PACKAGE_VERSION } from '../server/version.js';
import { endQuietlyWhenOutputCloses, keepRunningWhenOutputCloses } from './closed-output.js';
import { catchStopSignals } from './signals.js';

endQuietlyWhenOutputCloses();

const program = new Command('apidsl')
  .description('Describe an HTTP API in a .api file; check, format and serve it.')
  .version(PACKAGE_VERSION, '-v, --version', 'print the version')
  .showHelpAfterError();

program
  .command('check')
  .description('check .api files and print their diagnostics (exit 1 if any error)')
  .argument('<files...>', '.api files, or folders (every .api file inside, recursively)')
  .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'))
  .option(
    '--fix',
    "apply the language server's quick fixes (did you mean…, double quotes, missing filters…) and report what remains",
  )
  .action(async (files: string[], opts: { format: 'text' | 'json'; fix?: boolean }) => {
    // Subcommands load their modules on demand, so `check` never loads the server.
    const { runCheck } = await import('./check.js');
    process.exitCode = runCheck(files, opts.format, opts.fix ?? false);
  });

program
  .command('fmt')
  .description('rewrite .api files in the canonical layout, comments kept')
  .argument('<files...>', '.api files, or folders (every .api file inside, recursively)')
  .option('--check', 'only list the files that would change (exit 1 if any)')
  .action(async (files: string[], opts: { check?: boolean }) => {
    const { runFmt } = await import('./fmt.js');
    process.exitCode = runFmt(files, opts.check ?? false);
  });

program
  .command('serve')
  .description('check a .api file, then serve it')
  .argument('<file>', '.api file')
  .option('-p, --port <port>', 'port (default: $PORT or 3000; 0 picks a free one)')
  .option('--host <host>', 'host to listen on', '127.0.0.1')
  .option('--data <dir>', 'embedded store directory (default: .apidsl-data/ beside the file)')
  .option('--memory', 'keep everything in memory, fresh on every start')
  .option(
    '--db <uri>',
    'MongoDB connection string (mongodb://host:port/name) or PostgreSQL URL (postgres://user@host:5432/name)',
  )
  .option('--watch', 'reload when the file changes')
  .option('--consume', 'also handle the queued messages (embedded and amqp transports)')
  .option(
    '--workers <n>',
    'processes serving the port (a number, or auto: one per core; default 1); needs --data or --db',
  )
  .option('--debug', 'show stack traces of unexpected errors in responses')
  .action(async (file: string, opts) => {
    // Installed already by bin/apidsl.js before anything loaded; here for a caller of main.js itself.
    catchStopSignals('serve');
    keepRunningWhenOutputCloses();
    const { runServe } = await import('./serve.js');
    process.exitCode = await runServe(file, opts);
  });

program
  .command('consume')
  .description('handle the queued messages of a .api file (embedded and amqp transports) until stopped')
  .argument('<file>', '.api file')
  .option('--data <dir>', 'embedded store directory (default: .apidsl-data/ beside the file)')
  .option(
    '--db <uri>',
    'MongoDB connection string (mongodb://host:port/name) or PostgreSQL URL (postgres://user@host:5432/name)',
  )
  .action(async (file: string, opts) => {
    catchStopSignals('consume');
    keepRunningWhenOutputCloses();
    const { runConsume } = await import('./consume.js');
    process.exitCode = await runConsume(file, opts);
  });

program
  .command('mcp')
  .description("serve a .api file's MCP tools over stdio, for an agent that starts the process (config mcp.enabled)")
  .argument('<file>', '.api file')
  .option('--data <dir>', 'embedded store directory (default: .apidsl-data/ beside the file)')
  .option('--memory', 'keep everything in memory, fresh on every start')
  .option(
    '--db <uri>',
    'MongoDB connection string (mongodb://host:port/name) or PostgreSQL URL (postgres://user@host:5432/name)',
  )
  .option(
    '--token <jwt>',
    'call the tools as the user of this bearer token (default: $APIDSL_MCP_TOKEN; none: anonymous)',
  )
  .action(async (file: string, opts) => {
    catchStopSignals('mcp');
    const { runMcp } = await import('./mcp.js');
    process.exitCode = await runMcp(file, opts);
  });

program
  .command('migrate')
  .description('list the changes a .api file makes to stored data, and apply those the data allows')
  .argument('<file>', '.api file')
  .option('--dry-run', 'only list the changes, safe and unsafe, with the stored items each affects')
  .option('--data <dir>', 'embedded store directory (default: .apidsl-data/ beside the file)')
  .option(
    '--db <uri>',
    'MongoDB connection string (mongodb://host:port/name) or PostgreSQL URL (postgres://user@host:5432/name)',
  )
  .action(async (file: string, opts: { dryRun?: boolean; data?: string; db?: string }) => {
    const { runMigrate } = await import('./migrate.js');
    process.exitCode = await runMigrate(file, opts);
  });

program
  .command('init')
  .description('start a project: a starter .api file, editor settings, .gitignore (never overwrites)')
  .argument('[dir]', 'directory (created when missing)', '.')
  .action(async (dir: string) => {
    const { runInit } = await import('./init.js');
    process.exitCode = runInit(dir);
  });

const storeOptions = (command: Command): Command =>
  command
    .option('--data <dir>', 'embedded store directory (default: .apidsl-data/ beside the file)')
    .option('--memory', 'refused: an in-memory store is gone when the command ends')
    .option(
      '--db <uri>',
      'MongoDB connection string (mongodb://host:port/name) or PostgreSQL URL (postgres://user@host:5432/name)',
    );
const dataFormat = (flags: string): Option =>
  new Option(flags, 'data format (default: from the file name)').choices(['json', 'ndjson', 'csv']);

storeOptions(
  program
    .command('import')
    .description('load a JSON array, NDJSON or CSV file into a resource, each record checked as a POST body')
    .argument('<file>', '.api file')
    .argument('<resource>', 'resource name, e.g. Book')
    .argument('<data>', 'data file (.json, .ndjson or .csv)'),
)
  .addOption(dataFormat('--format <format>'))
  .option('--batch-size <n>', 'records per transaction', '1000')
  .option('--skip <n>', 'skip the first n records (to resume an interrupted import)', '0')
  .action(async (file: string, resource: string, data: string, opts) => {
    const { runImport } = await import('./import.js');
    process.exitCode = await runImport(file, resource, data, opts);
  });

storeOptions(
  program
    .command('export')
    .description("write a resource's items as a JSON array, NDJSON or CSV (stdout, or --out)")
    .argument('<file>', '.api file')
    .argument('<resource>', 'resource name, e.g. Book'),
)
  .addOption(dataFormat('--format <format>'))
  .option('-o, --out <file>', 'write to this file instead of stdout')
  .action(async (file: string, resource: string, opts) => {
    const { runExport } = await import('./export.js');
    process.exitCode = await runExport(file, resource, opts);
  });

storeOptions(
  program
    .command('reindex')
    .description(
      'fill the search index of the elasticsearch resources from the store, removing what the store no longer holds',
    )
    .argument('<file>', '.api file')
    .argument('[resource]', 'only this resource, e.g. Book'),
).action(async (file: string, resource: string | undefined, opts) => {
  const { runReindex } = await import('./reindex.js');
  process.exitCode = await runReindex(file, resource, opts);
});

storeOptions(
  program
    .command('reset')
    .description('delete every item of every resource of a .api file (asks first; --yes when not on a terminal)')
    .argument('<file>', '.api file'),
)
  .option('-y, --yes', 'do not ask')
  .action(async (file: string, opts) => {
    const { runReset } = await import('./reset.js');
    process.exitCode = await runReset(file, opts);
  });

const messenger = program.command('messenger').description('the message bus of a .api file');
messenger
  .command('failed')
  .description('list (show), send back to their queue (retry) or delete (remove) the messages whose retries were spent')
  .argument('<file>', '.api file')
  .addArgument(new Argument('[action]', 'what to do').choices(['show', 'retry', 'remove']).default('show'))
  .argument('[ids...]', 'message ids (show: one, in full; retry: none for every one; remove: at least one)')
  .option('--data <dir>', 'embedded store directory (default: .apidsl-data/ beside the file)')
  .option('--memory', 'refused: an in-memory store holds no queue between commands')
  .option(
    '--db <uri>',
    'MongoDB connection string (mongodb://host:port/name) or PostgreSQL URL (postgres://user@host:5432/name)',
  )
  .action(async (file: string, action: 'show' | 'retry' | 'remove', ids: string[], opts) => {
    const { runMessengerFailed } = await import('./messenger-failed.js');
    process.exitCode = await runMessengerFailed(file, action, ids, opts);
  });

program
  .command('routes')
  .description('print the route table of a .api file')
  .argument('<file>', '.api file')
  .action(async (file: string) => {
    const { runRoutes } = await import('./routes.js');
    process.exitCode = await runRoutes(file);
  });

program
  .command('openapi')
  .description('print the OpenAPI document of a .api file (JSON; YAML when --out ends in .yaml)')
  .argument('<file>', '.api file')
  .addOption(new Option('--spec-version <version>', 'OpenAPI version').choices(['3.1', '3.2']).default('3.2'))
  .option('-o, --out <file>', 'write the document to this file instead of stdout')
  .action(async (file: string, opts: { specVersion: string; out?: string }) => {
    const { runOpenapi } = await import('./openapi.js');
    process.exitCode = await runOpenapi(file, opts);
  });

program
  .command('client')
  .description('write a typed TypeScript client package for a .api file (docs/client.md)')
  .argument('<file>', '.api file')
  .requiredOption('-o, --out <dir>', 'the folder to write the package into')
  .option('--name <name>', "the package's npm name (default: <api title>-client)")
  .action(async (file: string, opts: { out: string; name?: string }) => {
    const { runClient } = await import('./client.js');
    process.exitCode = await runClient(file, opts);
  });

program
  .command('diff')
  .description('list the changes between two versions of an API, by severity and by who they break (docs/diff.md)')
  .argument('<old>', 'the previous .api file')
  .argument('<new>', 'the new .api file')
  .addOption(new Option('--format <format>', 'output format').choices(['text', 'json', 'markdown']).default('text'))
  .addOption(
    new Option('--fail-on <severity>', 'exit 1 when a finding is at or above it').choices(['breaking', 'warning']),
  )
  .action(
    async (
      oldFile: string,
      newFile: string,
      opts: { format: 'text' | 'json' | 'markdown'; failOn?: 'breaking' | 'warning' },
    ) => {
      const { runDiff } = await import('./diff.js');
      process.exitCode = await runDiff(oldFile, newFile, opts);
    },
  );

program
  .command('graphql')
  .description('print the GraphQL schema of a .api file (SDL)')
  .argument('<file>', '.api file')
  .option('-o, --out <file>', 'write the schema to this file instead of stdout')
  .action(async (file: string, opts: { out?: string }) => {
    const { runGraphql } = await import('./graphql.js');
    process.exitCode = await runGraphql(file, opts);
  });

program
  .command('token')
  .description(
    "print a JWT signed with the shared secret of the file's security { jwt { secret_env } } (for curl and tests)",
  )
  .argument('<file>', '.api file')
  .requiredOption('--sub <id>', "the user's identifier (the user claim, sub by default)")
  .option('--roles <roles>', 'comma-separated roles, put in the configured roles claim')
  .option('--ttl <duration>', 'lifetime: 90s, 15m, 1h, 7d', '1h')
  .option(
    '--claim <key=value>',
    'another claim (repeatable; the value is JSON when it parses)',
    (v: string, all: string[]) => [...all, v],
    [] as string[],
  )
  .action(async (file: string, opts: { sub: string; roles?: string; ttl: string; claim: string[] }) => {
    const { runToken } = await import('./token.js');
    process.exitCode = await runToken(file, opts);
  });

program
  .command('lsp')
  .description('run the language server for editors (completion, diagnostics, hover, …)')
  .option('--stdio', 'speak LSP over stdin/stdout')
  .option('--node-ipc', 'speak LSP over the Node IPC channel (a Node client such as VS Code forked the server)')
  .allowUnknownOption() // clients add their own flags (--clientProcessId=…)
  .action(async (opts: { stdio?: boolean; nodeIpc?: boolean }) => {
    const { runLsp } = await import('./lsp.js');
    process.exitCode = runLsp(opts, PACKAGE_VERSION);
  });

await program.parseAsync(process.argv);
