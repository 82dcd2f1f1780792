/**
 * The Neovim setups of docs/editor.md, run as written in a headless Neovim: the `init.lua` snippet for the
 * installed Neovim's version (0.7, or 0.8 and later) makes a `.api` buffer's file type `apidsl`, attaches the
 * `apidsl lsp --stdio` client (the command found on PATH, as a user has it) and the server's diagnostics reach
 * `vim.diagnostic`. Without `nvim` on PATH the suite is skipped with a notice (under CI=true it fails).
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { tempDir } from '../http/harness.js';
import { fromRoot } from '../support/paths.js';

/** The snippet docs/editor.md gives after the line naming `version` ("Neovim 0.7", "Neovim 0.8 or later"). */
function snippet(version: string): string {
  const doc = readFileSync(fromRoot('docs/editor.md'), 'utf8');
  const at = doc.indexOf(`\nNeovim ${version}`);
  expect(at, `docs/editor.md has a snippet for Neovim ${version}`).to.be.greaterThan(0);
  return /```lua\n([^]*?)```/.exec(doc.slice(at))![1];
}

/** Appended to the snippet: once the buffer has diagnostics, what Neovim knows is written as JSON, and Neovim quits. */
const PROBE = `
local out = os.getenv("APIDSL_NVIM_OUT")
local function finish(result)
  local f = io.open(out, "w")
  f:write(vim.fn.json_encode(result))
  f:close()
  vim.cmd("qa!")
end
vim.api.nvim_create_autocmd("DiagnosticChanged", {
  callback = function()
    local diagnostics = vim.diagnostic.get(0)
    if #diagnostics == 0 then return end
    local clients = {}
    for _, c in pairs(vim.lsp.buf_get_clients(0)) do table.insert(clients, c.name) end
    finish({
      filetype = vim.bo.filetype,
      clients = clients,
      diagnostics = vim.tbl_map(function(d)
        return { lnum = d.lnum, col = d.col, code = d.code, message = d.message }
      end, diagnostics),
    })
  end,
})
vim.defer_fn(function() finish({ timedOut = true, filetype = vim.bo.filetype }) end, 60000)
`;

interface Outcome {
  filetype: string;
  clients?: string[];
  diagnostics?: { lnum: number; col: number; code: string; message: string }[];
  timedOut?: boolean;
}

const nvimVersion = (): [number, number] | undefined => {
  const r = spawnSync('nvim', ['--version'], { encoding: 'utf8' });
  const m = /NVIM v(\d+)\.(\d+)/.exec(r.stdout ?? '');
  return m ? [Number(m[1]), Number(m[2])] : undefined;
};

describe('Neovim: the init.lua of docs/editor.md attaches apidsl lsp and shows its diagnostics', function () {
  this.timeout(120_000);
  const version = nvimVersion();

  before(function () {
    if (version) return;
    if (process.env.CI === 'true') throw new Error('nvim is not on PATH (CI installs Debian’s neovim package)');
    console.log('    (skipped: nvim is not on PATH; Debian: apt-get install neovim)');
    this.skip();
  });

  it('the snippet for this Neovim (0.7, or 0.8 and later), on a .api file with a misspelt option', () => {
    const [major, minor] = version!;
    const dir = tempDir('apidsl-nvim-');
    // `apidsl` on PATH, as a user has it after installing the package.
    mkdirSync(join(dir, 'bin'));
    const command = join(dir, 'bin', 'apidsl');
    writeFileSync(command, `#!/bin/sh\nexec "${process.execPath}" "${fromRoot('bin/apidsl.js')}" "$@"\n`);
    chmodSync(command, 0o755);
    const init = join(dir, 'init.lua');
    writeFileSync(init, snippet(major === 0 && minor < 8 ? '0.7' : '0.8 or later') + PROBE);
    const file = join(dir, 'books.api');
    writeFileSync(
      file,
      'resource Book {\n  paginationItemPerPage: 10\n  properties { id: int { identifier: true } }\n}\n',
    );
    const out = join(dir, 'outcome.json');

    const r = spawnSync('nvim', ['--headless', '--clean', '-u', init, file], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 90_000,
      env: { ...process.env, PATH: `${join(dir, 'bin')}${delimiter}${process.env.PATH}`, APIDSL_NVIM_OUT: out },
    });
    expect(existsSync(out), `nvim wrote no outcome (exit ${r.status}): ${r.stdout}\n${r.stderr}`).to.equal(true);
    const outcome = JSON.parse(readFileSync(out, 'utf8')) as Outcome;
    expect(outcome, `${r.stdout}\n${r.stderr}`).to.not.have.property('timedOut');
    expect(outcome.filetype).to.equal('apidsl');
    expect(outcome.clients).to.deep.equal(['apidsl']);
    expect(outcome.diagnostics).to.deep.equal([
      {
        lnum: 1,
        col: 2,
        code: 'unknown-option',
        message: "unknown resource option 'paginationItemPerPage'; did you mean 'paginationItemsPerPage'?",
      },
    ]);
  });
});
