/** Runs the built `apidsl` command as a user would, capturing its output and exit code. */
import { spawnSync } from 'node:child_process';
import { fromRoot } from './paths.js';

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): CliResult {
  const r = spawnSync(process.execPath, [fromRoot('bin/apidsl.js'), ...args], {
    encoding: 'utf8',
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    timeout: options.timeoutMs, // a command that should exit but serves instead is killed, not waited for
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
