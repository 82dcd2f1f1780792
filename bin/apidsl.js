#!/usr/bin/env node
// The command runs from dist/bundle/ (scripts/bundle-cli.mjs bundles the compiled dist/cli/ with the packages it
// imports; both are built by `npm ci` through the prepare script).
//
// A long-running command's stop handlers go in before anything else loads (docs/behaviour.md, "Stopping"):
// loading the command's modules takes hundreds of milliseconds on a busy machine, and a SIGTERM or SIGINT in that
// time must stop the command cleanly (exit 0), not end it by the signal's default action. signals.js imports
// nothing but node:cluster, so this costs a few milliseconds. Workers of `serve --workers` run this file too.
import { catchStopSignals, LONG_RUNNING } from '../dist/bundle/cli/signals.js';

const command = process.argv.slice(2).find((arg) => !arg.startsWith('-'));
if (LONG_RUNNING.includes(command)) catchStopSignals(command);
await import('../dist/bundle/cli/main.js');
