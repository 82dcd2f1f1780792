/** Runs the built `apidsl` command as a user would, capturing its output and exit code. */
import { spawnSync } from 'node:child_process';
import { fromRoot } from './paths.js';

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): CliResult {
  const r = spawnSync(process.execPath, [fromRoot('bin/apidsl.js'), ...args], {
    encoding: 'utf8',
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
