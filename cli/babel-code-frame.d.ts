// @babel/code-frame 7 ships no types; this is the part of its API the CLI uses.
declare module '@babel/code-frame' {
  export interface Location {
    start: { line: number; column?: number };
    end?: { line: number; column?: number };
  }
  export function codeFrameColumns(
    rawLines: string,
    location: Location,
    options?: {
      highlightCode?: boolean;
      forceColor?: boolean;
      linesAbove?: number;
      linesBelow?: number;
      message?: string;
    },
  ): string;
}
