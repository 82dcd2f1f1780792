/**
 * TypeScript's own compiler, in process: the type tests of generated clients (test/client/) compile programs
 * against them as a user's project would (`strict`, declarations checked, the DOM's `fetch`) and read each file's
 * diagnostics, or emit the programs to run them.
 */
import ts from 'typescript';

export const USER_OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
  types: [],
  strict: true,
  skipLibCheck: false,
  noEmit: true,
};

export interface Compiled {
  /** Every diagnostic, as `file(line): TSxxxx message`. */
  all: string[];
  /** The diagnostics of one file (its codes and messages). */
  of(file: string): { code: number; message: string }[];
}

/** Type-checks `roots` (and what they import); with `outDir`, also writes their JavaScript there. */
export function compile(roots: string[], outDir?: string): Compiled {
  const options = outDir ? { ...USER_OPTIONS, noEmit: false, outDir } : USER_OPTIONS;
  const program = ts.createProgram(roots, options);
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...(outDir ? program.emit().diagnostics : [])];
  const text = (d: ts.Diagnostic) => ts.flattenDiagnosticMessageText(d.messageText, '\n');
  return {
    all: diagnostics.map((d) => {
      const at = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0;
      return `${d.file?.fileName ?? ''}(${at}): TS${d.code} ${text(d)}`;
    }),
    of: (file) => diagnostics.filter((d) => d.file?.fileName === file).map((d) => ({ code: d.code, message: text(d) })),
  };
}
