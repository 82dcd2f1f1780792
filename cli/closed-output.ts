/**
 * A reader that goes away early (`apidsl check DIR | head -1`): Node ignores SIGPIPE, so the next write to
 * the closed pipe fails with EPIPE, an 'error' event nobody handles, and the process dies with a stack
 * trace. Here the command ends at once and quietly instead, with the exit status it had reached (0 unless it
 * had already failed), as a C program killed by SIGPIPE stops without a word.
 */
export function endQuietlyWhenOutputCloses(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE') throw e;
      process.exit();
    });
  }
}
