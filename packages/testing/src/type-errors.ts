import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('../../..', import.meta.url));

/**
 * The compiler's messages for each of `modules` (name → TypeScript source), type-checked together
 * as a user's code would be (`strict`, NodeNext, ESM), each as `line:column message` with its
 * whole chain. `@tollgate/*` imports resolve to the packages' sources: no build is needed first.
 */
export async function typeErrorsOf<Name extends string>(modules: Record<Name, string>): Promise<Record<Name, string[]>> {
  const dir = await mkdtemp(join(tmpdir(), 'tollgate-types-'));
  try {
    const names = Object.keys(modules) as Name[];
    const files = names.map((name) => join(dir, `${name}.mts`));
    for (const [i, name] of names.entries()) writeFileSync(files[i]!, modules[name]);
    const program = ts.createProgram(files, {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      strict: true,
      skipLibCheck: true,
      noEmit: true,
      types: ['node'],
      typeRoots: [join(root, 'node_modules/@types')],
      baseUrl: root,
      paths: { '@tollgate/*': ['packages/*/src/index.ts'] },
    });
    const diagnostics = ts.getPreEmitDiagnostics(program);
    const messagesOf = (file: string) =>
      diagnostics.filter((diagnostic) => diagnostic.file?.fileName === file).map((diagnostic) => messageOf(diagnostic));
    return Object.fromEntries(names.map((name, i) => [name, messagesOf(files[i]!)])) as Record<Name, string[]>;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function messageOf(diagnostic: ts.Diagnostic): string {
  const { line, character } = diagnostic.file!.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
  return `${line + 1}:${character + 1} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
}
