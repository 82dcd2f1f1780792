/**
 * The curl commands of the documentation work as written: every `curl` of a fenced `sh` block of README.md,
 * docs/*.md and examples/README.md, and of the header comment of each example `.api` file, runs against a real
 * `apidsl serve` of the example it belongs to (the file of the last `apidsl serve` before it in the same text;
 * `npm start` is the serve command of package.json's start script; a `todos.api` after `apidsl init` is the
 * starter that init writes), in the documented order, with only the host and port rewritten to the test server's. Each must exit 0 (no
 * curl usage or globbing error) and answer the status STATUSES states for it; a status written in its comment
 * (`# 401`) must be the one it gets too. A streaming command (`curl -N`, a Mercure subscription) runs in the
 * background with a short --max-time, as "another terminal" would: it counts as working when it connected (200) and, when a later
 * command of the same text writes, it received an update. The lines around the commands run as written
 * (`export` of a secret, `TOKEN=$(apidsl token …)`); the one input file a command names (`@books.ndjson`)
 * is written by this test.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fromRoot } from '../support/paths.js';
import { ZINC_PASSWORD, ZINC_USER, zincOrSkip } from '../support/zincsearch.js';
import { startServer, tempDir } from './harness.js';

interface Serve {
  file: string;
  /** Flags of the documented command that the test keeps (the store is the harness's choice). */
  args: string[];
  /** Variables set in front of the command (`MERCURE_SUBSCRIBER_JWT_KEY=change-me apidsl serve …`). */
  env: Record<string, string>;
}

interface Script {
  /** `README.md:410`: the text and the line its block starts on. */
  where: string;
  serve: Serve;
  /** Lines before the serve command in the same block (`export APIDSL_JWT_SECRET=…`): they set the server's environment. */
  setup: string[];
  /** The lines after it, in order (continuations joined): curl commands and what they need (`TOKEN=…`). */
  commands: string[];
}

const SERVE = /(?:^|&&\s*|\s)((?:[A-Z_]+=\S+\s+)*)(?:npx\s+|node\s+bin\/)?apidsl(?:\.js)?\s+serve\s+(\S+\.api)([^&#]*)/;
/** Lines that start or build something the test does itself, or that are no command for the server. */
const SKIPPED = /^(?:npm\s|npx apidsl (?:serve|consume|check)\b|apidsl\s)/;
/** `npm start`: the command of package.json's start script. */
const START_SCRIPT: string = JSON.parse(readFileSync(fromRoot('package.json'), 'utf8')).scripts.start;
/** The files `apidsl init` writes, served from where init copies them. */
const INIT_STARTER: Record<string, string> = { 'todos.api': 'cli/starter/todos.api' };

function serveOf(line: string, afterInit: boolean): Serve | undefined {
  const m = SERVE.exec(/^npm start\b/.test(line) ? START_SCRIPT : line);
  if (!m) return undefined;
  const env: Record<string, string> = {};
  for (const assignment of m[1].trim().split(/\s+/).filter(Boolean)) {
    const [name, ...value] = assignment.split('=');
    env[name] = value.join('=');
  }
  const args = m[3]
    .trim()
    .split(/\s+/)
    .filter((a) => a === '--consume');
  const file = afterInit && INIT_STARTER[m[2]] ? INIT_STARTER[m[2]] : m[2];
  return { file: fromRoot(file), args, env };
}

/** Logical lines: a line ending with `\` goes on with the next one. */
function logicalLines(lines: { text: string; at: number }[]): { text: string; at: number }[] {
  const out: { text: string; at: number }[] = [];
  let pending: { text: string; at: number } | undefined;
  for (const { text, at } of lines) {
    const joined = pending ? `${pending.text} ${text.trim()}` : text;
    const start = pending?.at ?? at;
    if (/\\\s*$/.test(joined)) pending = { text: joined.replace(/\\\s*$/, ''), at: start };
    else {
      pending = undefined;
      out.push({ text: joined.trim(), at: start });
    }
  }
  return out;
}

/** The scripts of one text, given as blocks of lines (fenced blocks, or the header comment of an .api file). */
function scriptsOf(
  name: string,
  blocks: { at: number; lines: { text: string; at: number }[] }[],
  own?: Serve,
): Script[] {
  const scripts: Script[] = [];
  let serve = own;
  let afterInit = false;
  for (const block of blocks) {
    const lines = logicalLines(block.lines).filter((l) => l.text !== '' && !l.text.startsWith('#'));
    afterInit ||= lines.some((l) => /^(?:npx\s+)?apidsl init\b/.test(l.text));
    const serveIndex = lines.findIndex((l) => serveOf(l.text, afterInit));
    if (serveIndex >= 0) serve = serveOf(lines[serveIndex].text, afterInit);
    if (!lines.some((l) => /^curl\s|\scurl\s/.test(l.text))) continue;
    expect(serve, `${name}:${block.at}: curl commands without an apidsl serve before them`).to.not.equal(undefined);
    scripts.push({
      where: `${name}:${block.at}`,
      serve: serve!,
      setup: lines
        .slice(0, Math.max(serveIndex, 0))
        .map((l) => l.text)
        .filter((t) => /^export\s/.test(t)),
      commands: lines
        .slice(serveIndex + 1)
        .map((l) => l.text)
        .filter((t) => !SKIPPED.test(t)),
    });
  }
  return scripts;
}

function markdownScripts(path: string): Script[] {
  const lines = readFileSync(fromRoot(path), 'utf8').split('\n');
  const blocks: { at: number; lines: { text: string; at: number }[] }[] = [];
  let current: { at: number; lines: { text: string; at: number }[] } | undefined;
  let fenced = false;
  lines.forEach((text, i) => {
    const fence = /^\s*```(\w*)/.exec(text);
    if (fence && !fenced) {
      fenced = true;
      current = ['sh', 'bash', 'shell'].includes(fence[1]) ? { at: i + 1, lines: [] } : undefined;
    } else if (fence) {
      fenced = false;
      if (current) blocks.push(current);
      current = undefined;
    } else current?.lines.push({ text, at: i + 1 });
  });
  return scriptsOf(path, blocks);
}

/** The commands of an example's header comment (`//   curl …`), served by the example itself. */
function exampleScripts(file: string): Script[] {
  const path = `examples/${file}`;
  const header: { text: string; at: number }[] = [];
  for (const [i, line] of readFileSync(fromRoot(path), 'utf8').split('\n').entries()) {
    if (!line.startsWith('//')) break;
    header.push({ text: line.replace(/^\/\/\s?/, ''), at: i + 1 });
  }
  return scriptsOf(path, [{ at: 1, lines: header }]);
}

const DOCS = [
  'README.md',
  'examples/README.md',
  ...readdirSync(fromRoot('docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const EXAMPLES = readdirSync(fromRoot('examples')).filter((f) => f.endsWith('.api'));
const SCRIPTS = [...DOCS.flatMap(markdownScripts), ...EXAMPLES.flatMap(exampleScripts)];

/**
 * The status each curl of a text answers, in the order of the text (a text's curls are listed whole: one added
 * to a text must be stated here).
 */
const STATUSES: Record<string, number[]> = {
  'README.md': [201, 200, 200, 201, 200, 200],
  'docs/data.md': [201, 201],
  'docs/formats.md': [406],
  'docs/messenger.md': [202, 200],
  'docs/realtime.md': [200, 201],
  'docs/security.md': [201, 401, 403, 204],
  'examples/async-books.api': [202, 200],
  'examples/catalogue.api': [201, 201, 200, 200, 200, 401, 204],
  'examples/event-log.api': [201, 200, 200],
  // The librarian's DELETE passes the security rule and finds no book 1 (the text creates none).
  'examples/library-mutators.api': [200, 401, 404],
  'examples/live-books.api': [200, 201],
  'examples/marketplace.api': [201, 201, 404, 403, 200, 201, 200, 404],
  'examples/places.api': [201, 200, 200, 200, 202],
  'examples/search-books.api': [201, 201, 200],
  'examples/shop-orders.api': [201, 201],
};

/** `README.md` of `README.md:24`. */
const textOf = (script: Script): string => script.where.replace(/:\d+$/, '');
const isCurl = (command: string): boolean => /^curl\s/.test(command);
const isStreaming = (command: string): boolean => isCurl(command) && /\s-N\b/.test(command);
const writes = (command: string): boolean =>
  isCurl(command) && /\s-X\s*(?:POST|PUT|PATCH|DELETE)\b|\s-d\s/.test(command);

/** `curl` as the commands call it: a short time limit, then the status and curl's exit code for the test. */
const CURL_WRAPPER = `curl() {
  command curl --max-time "\${CURL_MAX_TIME:-10}" -sS -w '\\n@@status %{http_code}\\n' "$@"
  echo "@@exit $?"
}`;

interface Outcome {
  command: string;
  /** Its rank among the script's curl commands. */
  curl: number;
  status: string;
  exit: number;
  output: string;
}

/** A command without its trailing `# comment` (a `#` outside quotes, after a blank). */
function withoutComment(command: string): string {
  let quote: string | undefined;
  for (let i = 0; i < command.length; i++) {
    const c = command[i];
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"') i++;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '\\') i++;
    else if (c === '#' && /\s/.test(command[i - 1] ?? ' ')) return command.slice(0, i).trimEnd();
  }
  return command;
}

/** Runs the script's commands in one bash, as a reader would type them, against `base` (`127.0.0.1:PORT`). */
function run(script: Script, base: string, env: NodeJS.ProcessEnv, dir: string): Outcome[] {
  writeFileSync(join(dir, 'books.ndjson'), '{"title":"Dune"}\n{"title":"Emma"}\n');
  const rewrite = (command: string): string =>
    withoutComment(command)
      .replace(/localhost:3000/g, base)
      .replace(/(?<![\w./-])(?:npx )?apidsl(?= )/g, `node ${fromRoot('bin/apidsl.js')}`)
      .replace(/@books\.ndjson\b/g, `@${join(dir, 'books.ndjson')}`);
  const lines = [CURL_WRAPPER, 'set -o pipefail'];
  const streams: number[] = [];
  script.commands.forEach((command, i) => {
    if (!isCurl(command)) lines.push(rewrite(command));
    else if (isStreaming(command)) {
      // "In another terminal": in the background, for a few seconds, while the next commands run.
      streams.push(i);
      lines.push(`( echo "@@command ${i}"; CURL_MAX_TIME=3 ${rewrite(command)} ) > ${join(dir, `stream-${i}`)} 2>&1 &`);
      lines.push('sleep 1');
    } else lines.push(`echo "@@command ${i}"`, `${rewrite(command)} 2>&1`);
  });
  lines.push('wait');
  for (const i of streams) lines.push(`cat ${join(dir, `stream-${i}`)}`);
  const r = spawnSync('bash', ['-c', lines.join('\n')], {
    cwd: fromRoot('.'),
    env,
    encoding: 'utf8',
    timeout: 120_000,
  });
  const outcomes: Outcome[] = [];
  for (const part of r.stdout.split(/^@@command /m).slice(1)) {
    const index = Number(/^\d+/.exec(part)![0]);
    const status = /@@status (\d+)/.exec(part)?.[1] ?? 'none';
    const exit = Number(/@@exit (\d+)/.exec(part)?.[1] ?? -1);
    const curl = script.commands.slice(0, index).filter(isCurl).length;
    outcomes.push({ command: script.commands[index], curl, status, exit, output: part });
  }
  expect(outcomes.length, `${script.where}: ${r.stdout}\n${r.stderr}`).to.equal(script.commands.filter(isCurl).length);
  return outcomes;
}

/** The variables the setup lines export (`export APIDSL_JWT_SECRET="$(node -e …)"`), as bash computes them. */
function exported(setup: string[]): Record<string, string> {
  if (!setup.length) return {};
  const r = spawnSync('bash', ['-c', `${setup.join('\n')}\nenv -0`], { cwd: fromRoot('.'), encoding: 'utf8' });
  expect(r.status, r.stderr).to.equal(0);
  const out: Record<string, string> = {};
  for (const entry of r.stdout.split('\0')) {
    const eq = entry.indexOf('=');
    const [name, value] = [entry.slice(0, eq), entry.slice(eq + 1)];
    if (name && process.env[name] !== value && setup.some((s) => s.includes(name))) out[name] = value;
  }
  return out;
}

/**
 * A file with a search index is served against the test engine: its URL and the credentials, in the variables the
 * file names (`username_env`, `password_env`), replace the placeholders a text shows for the reader's own engine.
 */
async function searchEngineEnv(ctx: Mocha.Context, file: string): Promise<Record<string, string>> {
  const text = readFileSync(file, 'utf8');
  if (!/^\s*elasticsearch\s*\{/m.test(text)) return {};
  const engine = await zincOrSkip(ctx);
  const env: Record<string, string> = { APIDSL_ELASTICSEARCH_URL: engine.url };
  const user = /username_env:\s*"(\w+)"/.exec(text)?.[1];
  const password = /password_env:\s*"(\w+)"/.exec(text)?.[1];
  if (user) env[user] = ZINC_USER;
  if (password) env[password] = ZINC_PASSWORD;
  return env;
}

describe("the documentation's curl commands work as written", function () {
  this.timeout(180_000);

  it("finds them: every curl of the fenced sh blocks and of the examples' headers is in a script", () => {
    const written = [
      ...DOCS.map((d) => readFileSync(fromRoot(d), 'utf8')),
      ...EXAMPLES.map((f) => readFileSync(fromRoot(`examples/${f}`), 'utf8')),
    ]
      .join('\n')
      .split('\n')
      .filter((l) => /^(?:\/\/)?\s*curl\s/.test(l)).length;
    expect(SCRIPTS.flatMap((s) => s.commands.filter(isCurl))).to.have.length(written);
    expect(written).to.be.greaterThan(25);
  });

  it('states the status of each: STATUSES lists as many as each text has curls', () => {
    const counts: Record<string, number> = {};
    for (const s of SCRIPTS) counts[textOf(s)] = (counts[textOf(s)] ?? 0) + s.commands.filter(isCurl).length;
    expect(
      Object.fromEntries(Object.entries(STATUSES).map(([text, statuses]) => [text, statuses.length])),
    ).to.deep.equal(counts);
  });

  /** The rank in its text of each script's first curl. */
  const firstCurl = new Map<Script, number>();
  const seen: Record<string, number> = {};
  for (const script of SCRIPTS) {
    firstCurl.set(script, seen[textOf(script)] ?? 0);
    seen[textOf(script)] = firstCurl.get(script)! + script.commands.filter(isCurl).length;
  }

  for (const script of SCRIPTS) {
    it(`${script.where} (${script.serve.file.slice(fromRoot('.').length)})`, async function () {
      const env = {
        ...script.serve.env,
        ...exported(script.setup),
        ...(await searchEngineEnv(this, script.serve.file)),
      };
      const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
      Object.assign(process.env, env);
      const dir = tempDir('apidsl-curl-');
      // The embedded message queue needs the embedded store, also when the suite runs against MongoDB.
      const embeddedQueue = /transport:\s*"embedded"/.test(readFileSync(script.serve.file, 'utf8'));
      const store = embeddedQueue ? ['--data', tempDir('apidsl-curl-data-')] : [];
      const server = await startServer(script.serve.file, [...script.serve.args, ...store]);
      try {
        const outcomes = run(script, new URL(server.url).host, { ...process.env }, dir);
        expect(server.output(), 'apidsl serve warned, run as documented').not.to.match(/apidsl serve: warning/);
        for (const o of outcomes) {
          const what = `${o.command}\n${o.output}`;
          expect(o.status, what).to.equal(String(STATUSES[textOf(script)][firstCurl.get(script)! + o.curl]));
          if (isStreaming(o.command)) {
            // Cut by --max-time after connecting (28), or ended by the server (0).
            expect([0, 28], what).to.include(o.exit);
            expect(o.status, what).to.equal('200');
            if (script.commands.slice(script.commands.indexOf(o.command) + 1).some(writes))
              expect(o.output, `the subscription received no update: ${what}`).to.match(/^data: /m);
          } else expect(o.exit, what).to.equal(0);
          const documented = /\s#\s*(\d{3})\b[^'"]*$/.exec(o.command)?.[1];
          if (documented) expect(o.status, `documented status of ${what}`).to.equal(documented);
        }
      } finally {
        await server.stop();
        for (const [k, v] of Object.entries(saved)) {
          if (v === undefined) delete process.env[k];
          else process.env[k] = v;
        }
      }
    });
  }
});
