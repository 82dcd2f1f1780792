/**
 * Whether to colour what goes to a terminal: never with NO_COLOR (https://no-color.org) set, always
 * with FORCE_COLOR set to anything but 0/false, else only on a TTY that is not `TERM=dumb` (so a
 * pipe, a file or CI logs get plain text).
 */
import pc from 'picocolors';

type Colors = ReturnType<typeof pc.createColors>;

export function colourWanted(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR) return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '')
    return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  return stream.isTTY === true && env.TERM !== 'dumb';
}

/** picocolors' functions, turned on or off. */
export const colours = (enabled: boolean): Colors => pc.createColors(enabled);
