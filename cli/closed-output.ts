/**
 * A reader that goes away early (`apidsl check DIR | head -1`): Node ignores SIGPIPE, so the next write to
 * the closed pipe fails with EPIPE, an 'error' event nobody handles, and the process dies with a stack
 * trace. Here a command ends at once and quietly instead, with the exit status it had reached (0 unless it
 * had already failed), as a C program killed by SIGPIPE stops without a word.
 *
 * A service (`serve`, `consume`) is not stopped by it: a log reader that went away must not drop the requests
 * and messages in flight, so what it writes afterwards is lost and it goes on until a signal stops it.
 */
let keepRunning = false;

export function endQuietlyWhenOutputCloses(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE') throw e;
      if (!keepRunning) process.exit();
    });
  }
}

/** Called by the commands that run a service: a closed output no longer ends the process. */
export function keepRunningWhenOutputCloses(): void {
  keepRunning = true;
}
