/**
 * Seeded mutants of `.api` texts for fuzzing the front end: the examples under random edits (brackets, quotes,
 * comments, keywords, deletions, duplicated slices) and deep nesting. The same seed gives the same mutants.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fromRoot } from './paths.js';

/** What the fuzzers insert into a valid text: brackets, quotes, comments, whitespace, keywords, odd characters. */
export const BASIC_PIECES = [
  '{',
  '}',
  '[',
  ']',
  ':',
  ',',
  '"',
  '/*',
  '*/',
  '//',
  '\n',
  ' ',
  'resource',
  'Get',
  'x',
  '-1',
  '📚',
  'é',
  '\\',
  'null',
  'properties',
  'operations {',
];

/** The pieces of the seeded mutants: the basic ones, option openings, nesting, NUL, an overflowing number. */
export const PIECES = [
  ...BASIC_PIECES,
  'filters: [',
  'paginationViaCursor: [{',
  'filter f: order {',
  '{{{{',
  '[[[[',
  '\u0000',
  '1e999',
  'security: "',
  'mutator',
];

/** The normative example, the valid text the property-based fuzzers edit. */
export const bookstoreText = (): string => readFileSync(fromRoot('examples/bookstore.api'), 'utf8');

/** The example files, the seeds of the mutants. */
export function exampleTexts(): string[] {
  const dir = fromRoot('examples');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.api'))
    .sort()
    .map((f) => readFileSync(`${dir}/${f}`, 'utf8'));
}

/** mulberry32: a small seeded generator, so a failing mutant can be made again from its seed. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(rnd: () => number, list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;

/** Deeply nested text in a place where a value is expected (depth up to a few thousand). */
function deep(rnd: () => number): string {
  const depth = 50 + Math.floor(rnd() * (rnd() < 0.5 ? 300 : 5000));
  const [open, close] = pick(rnd, [
    ['[', ']'],
    ['{', '}'],
    ['{a: ', '}'],
    ['[{', '}]'],
  ] as const);
  const closed = rnd() < 0.5 ? close.repeat(depth) : close.repeat(Math.floor(rnd() * depth));
  return open.repeat(depth) + closed;
}

/** The mutant number `n` of the seed: an example with 1 to 8 random edits. */
export function mutant(seed: number, n: number, examples: string[]): string {
  const rnd = random(seed * 1_000_003 + n);
  let text = pick(rnd, examples);
  const edits = 1 + Math.floor(rnd() * 8);
  for (let i = 0; i < edits; i++) {
    const at = Math.floor(rnd() * (text.length + 1));
    const del = rnd() < 0.5 ? 0 : Math.floor(rnd() * 16);
    const kind = rnd();
    let insert: string;
    if (kind < 0.55) insert = pick(rnd, PIECES);
    else if (kind < 0.7)
      insert = String.fromCharCode(
        ...Array.from({ length: 1 + Math.floor(rnd() * 5) }, () => 32 + Math.floor(rnd() * 95)),
      );
    else if (kind < 0.85)
      insert = text.slice(Math.floor(rnd() * text.length)).slice(0, Math.floor(rnd() * 200)); // a duplicated slice
    else if (kind < 0.93) insert = '';
    else insert = deep(rnd);
    text = text.slice(0, at) + insert + text.slice(at + del);
  }
  return text;
}
