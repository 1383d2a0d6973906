import ts from 'typescript';

/** Compiler options of a strict application: what a user copying a README snippet has. */
export const SNIPPET_OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  lib: ['lib.es2022.d.ts'],
  types: ['node'],
  strict: true,
  esModuleInterop: true,
  // Nest's decorators.
  experimentalDecorators: true,
  emitDecoratorMetadata: true,
  // The consumer matrix checks the packages' declarations with skipLibCheck: false.
  skipLibCheck: true,
  noEmit: true,
};

export interface Diagnostic {
  /** 1-based line in the checked file (0 when the error has no position). */
  line: number;
  message: string;
}

/** Type-checks `files` (with `extraRoots`, e.g. ambient declarations) in one program: the errors of each file. */
export function typeCheck(files: readonly string[], extraRoots: readonly string[] = []): Map<string, Diagnostic[]> {
  const program = ts.createProgram([...files, ...extraRoots], SNIPPET_OPTIONS);
  const result = new Map<string, Diagnostic[]>();
  for (const file of files) {
    const source = program.getSourceFile(file);
    if (!source) throw new Error(`${file} was not part of the program`);
    const diagnostics = ts.getPreEmitDiagnostics(program, source).map((diagnostic) => {
      const message = `TS${diagnostic.code} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
      const line = diagnostic.start === undefined ? 0 : source.getLineAndCharacterOfPosition(diagnostic.start).line + 1;
      return { line, message };
    });
    result.set(file, diagnostics);
  }
  return result;
}
