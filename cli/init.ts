/**
 * `apidsl init [DIR]`: a starter project — a .api file that checks clean and serves, the data directory kept
 * out of git — then the next steps, the editor extension's installation included. Nothing is overwritten: when
 * any of the files exists, nothing is written. No `.vscode/extensions.json`: the extension is on no
 * marketplace, so a recommendation would point VS Code at nothing; it ships in the package as a `.vsix`.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { packageFile } from '../server/package-folder.js';

/** The starter .api file ships in the package (cli/starter/, beside the compiled dist/). */
const STARTER = packageFile('cli', 'starter', 'todos.api');
/** The VS Code extension, in the package (`npm pack` builds it; in a clone, `npm run --prefix vscode-extension package`). */
const VSIX = packageFile('vscode-extension', 'apidsl.vsix');

const FILES: Record<string, () => string> = {
  'todos.api': () => readFileSync(STARTER, 'utf8'),
  '.gitignore': () =>
    '# the embedded store of `apidsl serve` (apidsl reset empties it)\n.apidsl-data/\nnode_modules/\n',
};

export function runInit(dir: string = '.'): number {
  const root = resolve(dir);
  const existing = Object.keys(FILES).filter((name) => existsSync(join(root, name)));
  if (existing.length > 0) {
    process.stderr.write(
      `apidsl init: ${existing.map((name) => join(dir, name)).join(', ')} already exist${existing.length === 1 ? 's' : ''}; nothing written.\n`,
    );
    return 1;
  }
  for (const [name, content] of Object.entries(FILES)) {
    mkdirSync(join(root, name, '..'), { recursive: true });
    writeFileSync(join(root, name), content(), { flag: 'wx' });
  }
  const cd = relative(process.cwd(), root);
  process.stdout.write(
    [
      `Created ${Object.keys(FILES).join(', ')} in ${root}`,
      '',
      'Next steps:',
      ...(cd ? [`  cd ${cd}`] : []),
      '  apidsl serve todos.api            # the API on http://127.0.0.1:3000, its reference at /docs',
      '  apidsl check todos.api            # after each edit (the VS Code extension shows the same as you type)',
      '  apidsl import todos.api Todo todos.json   # load data (.json, .ndjson or .csv); apidsl export writes it out',
      '',
      ...editorSteps(),
      '',
      'The language: docs/options.md and docs/behaviour.md in the apidsl package; every command: apidsl --help.',
      '',
    ].join('\n'),
  );
  return 0;
}

/** How to get the editor support: the packaged VS Code extension, or the language server for other editors. */
function editorSteps(): string[] {
  const quoted = (path: string): string => (/[\s'"$]/.test(path) ? `'${path.replaceAll("'", "'\\''")}'` : path);
  const build = existsSync(VSIX)
    ? []
    : [`  npm run --prefix ${quoted(join(VSIX, '..'))} package   # builds the extension (this apidsl has none yet)`];
  return [
    'Editor support, once: the VS Code extension shipped with this apidsl',
    ...build,
    `  code --install-extension ${quoted(VSIX)}`,
    'Other editors run `apidsl lsp --stdio` (Neovim: docs/editor.md in the apidsl package).',
  ];
}
