/**
 * The layers of the source tree (docs/architecture.md): every import runs down the layers, never up,
 * and no file reaches itself through its imports (type-only imports included). Also: each stage of the
 * request pipeline lives in server/pipeline/stages/ under its own name, and options are read through
 * server/metadata/options.ts only (the one place that applies their precedence). And no function is over
 * MAX_FUNCTION_LINES lines.
 */
import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { OPTIONS } from '../grammar/catalogue/index.js';
import { PIPELINE } from '../server/pipeline/chain.js';
import { fromRoot, repoRoot } from './support/paths.js';

/** Top to bottom. A file may import its own layer's files and any lower layer's; the first prefix that matches wins. */
const LAYERS: readonly { name: string; paths: readonly string[] }[] = [
  { name: 'command line', paths: ['cli/'] },
  {
    name: 'adapters',
    paths: [
      'lsp/',
      'server/http/',
      'server/caching/',
      'server/graphql/',
      'server/mcp/',
      'server/serve.ts',
      'server/load-api.ts',
      'server/storage.ts',
      'server/consume.ts',
      'server/background-runtime.ts',
      'server/mcp-stdio.ts',
      'server/diff/',
    ],
  },
  { name: 'documents', paths: ['server/openapi/', 'server/client/'] },
  { name: 'pipeline', paths: ['server/pipeline/'] },
  {
    name: 'services',
    paths: ['server/security/', 'server/messenger/', 'server/realtime/', 'server/cluster/', 'server/search/'],
  },
  { name: 'protocol', paths: ['server/protocol/'] },
  { name: 'metadata', paths: ['server/metadata/'] },
  { name: 'expression', paths: ['server/expression/'] },
  {
    name: 'language and store',
    paths: [
      'grammar/',
      'server/store/',
      'server/paginators.ts',
      'server/version.ts',
      'server/refusal.ts',
      'server/package-folder.ts',
    ],
  },
];

/**
 * The rooms of server/pipeline/, top to bottom (docs/architecture.md, "The pipeline's rooms"): a file may import
 * its own room's files and any lower room's. The first prefix that matches wins.
 */
const PIPELINE_ROOMS: readonly { name: string; paths: readonly string[] }[] = [
  {
    name: 'entries',
    paths: [
      'server/pipeline/execute.ts',
      'server/pipeline/entry-answers.ts',
      'server/pipeline/preconditions.ts',
      'server/pipeline/open-runtime.ts',
      'server/pipeline/import.ts',
      'server/pipeline/rate-limit.ts',
      'server/pipeline/rate-limit-stores.ts',
    ],
  },
  { name: 'the chain', paths: ['server/pipeline/chain.ts', 'server/pipeline/bulk.ts'] },
  { name: 'stages', paths: ['server/pipeline/stages/'] },
  {
    name: 'what stages do',
    paths: ['server/pipeline/writes/', 'server/pipeline/custom-context.ts', 'server/pipeline/error-response.ts'],
  },
  {
    name: 'reads and relations',
    paths: ['server/pipeline/pages/', 'server/pipeline/filters/', 'server/pipeline/relations/'],
  },
  { name: 'representation', paths: ['server/pipeline/representation/'] },
  { name: 'validation', paths: ['server/pipeline/validation/'] },
  {
    name: 'state',
    paths: [
      'server/pipeline/state.ts',
      'server/pipeline/runtime.ts',
      'server/pipeline/guards.ts',
      'server/pipeline/scopes.ts',
      'server/pipeline/scoped-members.ts',
      'server/pipeline/answers.ts',
    ],
  },
];

const SOURCE_ROOTS = ['cli', 'lsp', 'server', 'grammar'];

/** The TypeScript files below `dir`; declaration files (`.d.ts`) only when asked. */
function sourceFiles(dir: string, declarations = false, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sourceFiles(path, declarations, out);
    else if (path.endsWith('.ts') && (declarations || !path.endsWith('.d.ts'))) out.push(path);
  }
  return out;
}

/** file → the repository files it imports (relative imports only: packages are outside the layers). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const root of SOURCE_ROOTS) {
    for (const file of sourceFiles(fromRoot(root))) {
      const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
      const targets = importedFiles
        .map((i) => i.fileName)
        .filter((spec) => spec.startsWith('.'))
        .map((spec) => resolve(dirname(file), spec).replace(/\.js$/, '.ts'))
        .filter((target) => existsSync(target))
        .map((target) => relative(repoRoot, target));
      graph.set(relative(repoRoot, file), targets);
    }
  }
  return graph;
}

const indexIn = (layers: typeof LAYERS, file: string): number =>
  layers.findIndex((l) => l.paths.some((p) => file === p || file.startsWith(p)));
const layerOf = (file: string): number => indexIn(LAYERS, file);
const roomOf = (file: string): number => indexIn(PIPELINE_ROOMS, file);

/** The import cycles, each as the files of one strongly connected component (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v)!.includes(v)) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('architecture: the import graph', () => {
  const graph = importGraph();

  it('reads the whole source tree', () => {
    expect(graph.size).to.be.greaterThan(150);
    expect(graph.get('server/http/operation-route.ts')).to.include('server/pipeline/execute.ts');
  });

  it('places every source file in a layer', () => {
    expect([...graph.keys()].filter((f) => layerOf(f) < 0)).to.deep.equal([]);
  });

  it('has no import running back up the layers', () => {
    const upward: string[] = [];
    for (const [file, targets] of graph) {
      for (const target of targets) {
        if (layerOf(target) < layerOf(file))
          upward.push(`${file} (${LAYERS[layerOf(file)]?.name}) → ${target} (${LAYERS[layerOf(target)]?.name})`);
      }
    }
    expect(upward).to.deep.equal([]);
  });

  it('places every file of server/pipeline/ in a room', () => {
    const pipeline = [...graph.keys()].filter((f) => f.startsWith('server/pipeline/'));
    expect(pipeline.length).to.be.greaterThan(50);
    expect(pipeline.filter((f) => roomOf(f) < 0)).to.deep.equal([]);
  });

  it('has no import running back up the rooms of server/pipeline/', () => {
    const upward: string[] = [];
    for (const [file, targets] of graph) {
      if (!file.startsWith('server/pipeline/')) continue;
      for (const target of targets) {
        if (target.startsWith('server/pipeline/') && roomOf(target) < roomOf(file))
          upward.push(
            `${file} (${PIPELINE_ROOMS[roomOf(file)].name}) → ${target} (${PIPELINE_ROOMS[roomOf(target)].name})`,
          );
      }
    }
    expect(upward).to.deep.equal([]);
  });

  it('enters the pipeline through its entries only (a request, an import): no adapter runs the chain or builds a state itself', () => {
    const runners = [...graph].filter(([, targets]) => targets.includes('server/pipeline/chain.ts')).map(([f]) => f);
    // The OpenAPI responses read which stages an operation runs (`stagesOf`), never run them.
    expect(runners.sort()).to.deep.equal([
      'server/openapi/responses.ts',
      'server/pipeline/execute.ts',
      'server/pipeline/import.ts',
    ]);
    const reads = readFileSync(fromRoot('server/openapi/responses.ts'), 'utf8').match(
      /import \{([^}]*)\} from '\.\.\/pipeline\/chain\.js'/,
    );
    expect(reads?.[1].trim()).to.equal('stagesOf');
  });

  it('has no import cycle', () => {
    expect(cycles(graph)).to.deep.equal([]);
  });

  it('has only the HTTP service import server/http/: no other adapter, and nothing below, speaks HTTP', () => {
    const importers = [...graph]
      .filter(([file]) => !file.startsWith('server/http/') && !file.startsWith('cli/'))
      .filter(([, targets]) => targets.some((t) => t.startsWith('server/http/')))
      .map(([file]) => file);
    expect(importers).to.deep.equal(['server/serve.ts']);
  });

  it('has the folders of the services layer import one way (realtime/ reads cluster/, never back)', () => {
    const services = LAYERS.find((l) => l.name === 'services')!.paths;
    const folderOf = (file: string): string | undefined => services.find((p) => file.startsWith(p));
    const folders = new Map<string, string[]>(services.map((p) => [p, []]));
    for (const [file, targets] of graph) {
      const from = folderOf(file);
      for (const to of targets.map(folderOf))
        if (from && to && to !== from && !folders.get(from)!.includes(to)) folders.get(from)!.push(to);
    }
    expect(folders.get('server/realtime/')).to.include('server/cluster/');
    expect(cycles(folders)).to.deep.equal([]);
  });

  it('finds a cycle and an upward import when there is one (the checks can fail)', () => {
    const broken = new Map(graph);
    broken.set('server/protocol/errors.ts', ['server/pipeline/chain.ts']);
    expect(cycles(broken).some((c) => c.includes('server/protocol/errors.ts'))).to.equal(true);
    expect(layerOf('server/pipeline/chain.ts')).to.be.lessThan(layerOf('server/protocol/errors.ts'));
    expect(roomOf('server/pipeline/stages/serialize.ts')).to.be.lessThan(roomOf('server/pipeline/writes/persist.ts'));
  });
});

describe('architecture: the pipeline stages', () => {
  const kebab = (name: string): string => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

  for (const { name, run } of PIPELINE) {
    it(`stage "${name}" is exported by server/pipeline/stages/${kebab(name)}.ts`, async () => {
      const module = (await import(`../server/pipeline/stages/${kebab(name)}.js`)) as Record<string, unknown>;
      expect(Object.values(module)).to.include(run);
    });
  }

  it('stages/ holds nothing but the stages', () => {
    const files = readdirSync(fromRoot('server/pipeline/stages')).filter((f) => f.endsWith('.ts'));
    expect(files.sort()).to.deep.equal(PIPELINE.map(({ name }) => `${kebab(name)}.ts`).sort());
  });
});

/** `x.options.<option>` or `x.options[…]`: a read of an option that skips the accessors of metadata/options.ts. */
function directOptionReads(source: string): string[] {
  const names = new Set<string>(OPTIONS.map((o) => o.name));
  const reads: string[] = [];
  for (const m of source.matchAll(/\.options\??\.([A-Za-z_]\w*)|\.options\??\.?\[/g)) {
    if (m[1] === undefined || names.has(m[1])) reads.push(m[0]);
  }
  return reads;
}

describe('architecture: option reads', () => {
  it('no file of server/ outside metadata/ reads `.options.<name>` itself', () => {
    const found: string[] = [];
    for (const file of sourceFiles(fromRoot('server'))) {
      const path = relative(repoRoot, file);
      if (path.startsWith('server/metadata/')) continue;
      for (const read of directOptionReads(readFileSync(file, 'utf8'))) found.push(`${path}: ${read}`);
    }
    expect(found).to.deep.equal([]);
  });

  it('recognises a direct read, and leaves other `options` objects alone (the check can fail)', () => {
    expect(
      directOptionReads('if (op.options.bulk === true || r.options?.input === false) x = o.options[k];'),
    ).to.deep.equal(['.options.bulk', '.options?.input', '.options[']);
    expect(directOptionReads('error.options.violations; client.options.writeConcern')).to.deep.equal([]);
  });
});

/** The longest a function, method or arrow function of the source may be, in lines (its comment not counted). */
const MAX_FUNCTION_LINES = 80;
const FUNCTION_ROOTS = ['server', 'grammar', 'cli', 'lsp', 'types'];

/** The functions of one file over MAX_FUNCTION_LINES lines, each as `path:line name (n lines)`. */
function longFunctions(path: string, text: string): string[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const lineOf = (pos: number): number => source.getLineAndCharacterOfPosition(pos).line + 1;
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = lineOf(node.getStart(source));
      const lines = lineOf(node.getEnd()) - first + 1;
      // An arrow function or function expression is named by what it is assigned to.
      const { parent } = node;
      const assigned = ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) ? parent.name : undefined;
      const named = node.name ?? assigned;
      if (lines > MAX_FUNCTION_LINES)
        found.push(`${path}:${first} ${named?.getText(source) ?? '(anonymous)'} (${lines} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('architecture: function length', () => {
  it(`has no function, method or arrow function over ${MAX_FUNCTION_LINES} lines in ${FUNCTION_ROOTS.join('/, ')}/`, () => {
    const files = FUNCTION_ROOTS.flatMap((root) => sourceFiles(fromRoot(root), true));
    expect(files.length).to.be.greaterThan(150);
    const found = files
      .filter((file) => !file.endsWith('.test.ts'))
      .flatMap((file) => longFunctions(relative(repoRoot, file), readFileSync(file, 'utf8')));
    expect(found).to.deep.equal([]);
  });

  it('names each function over the limit, of every kind, and passes one at the limit (the check can fail)', () => {
    const body = (n: number): string => '  void 0;\n'.repeat(n - 2);
    const text = [
      `/** Its comment is not counted. */\nfunction atLimit() {\n${body(80)}}`,
      `function declared() {\n${body(81)}}`,
      `class C {\n  method() {\n${body(81)}  }\n}`,
      `const arrow = () => {\n${body(81)}};`,
      `[1].map(function () {\n${body(81)}});`,
      `const o = {\n  property: () => {\n${body(81)}  },\n};`,
    ].join('\n');
    expect(longFunctions('x.ts', text)).to.deep.equal([
      'x.ts:82 declared (81 lines)',
      'x.ts:164 method (81 lines)',
      'x.ts:246 arrow (81 lines)',
      'x.ts:327 (anonymous) (81 lines)',
      'x.ts:409 property (81 lines)',
    ]);
  });
});
