/**
 * Everything the checker accepts about filters works, or the checker refuses it (docs/behaviour.md,
 * "Filters and QUERY"). Every filter kind × every property type (filters-grid-model.ts): the checker accepts
 * exactly the cells that have a meaning and refuses the others where the filter names the property; the
 * accepted cells, declared together in one generated `.api` file that `apidsl check` accepts, are served by
 * one real `apidsl serve` (the store of the run: APIDSL_TEST_STORE) and sent valid and invalid values on GET
 * and QUERY, through the operation's `filters` and through named `parameters`, with items fast-check makes. Every answer is a 200 whose members are the ones the reference
 * evaluation of the same criterion over the created items gives, in its order.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import fc from 'fast-check';
import { check } from '../../grammar/checker/index.js';
import { runCli } from '../support/cli.js';
import {
  FILTERS,
  PARAMETER,
  PROPERTIES,
  apiFile,
  applies,
  criteria,
  queryString,
  reference,
  type Base,
  type GridFilter,
  type GridProperty,
  type Item,
  type Raw,
} from './filters-grid-model.js';
import { get, request, tempDir, useServer } from './harness.js';

/** fast-check runs per store: each creates a batch of items and sends every cell a valid and an invalid value. */
const RUNS = Number(process.env.APIDSL_FILTER_GRID_RUNS ?? 3);

/** What the checker says about one filter on one property, alone in a file. */
function findingsOf(f: GridFilter, p: GridProperty): { code: string; at: string; message: string }[] {
  const text = apiFile([{ filter: f, props: [p] }], false);
  return check(text)
    .all.filter((d) => d.severity === 'error')
    .map((d) => ({ code: d.code, at: text.slice(d.range.start, d.range.end), message: d.message }));
}

/** The cells the checker accepts, by filter. */
const ACCEPTED = FILTERS.map((filter) => ({
  filter,
  props: PROPERTIES.filter((p) => findingsOf(filter, p).length === 0),
})).filter((c) => c.props.length > 0);

describe('checker: every filter kind on every property type', () => {
  for (const filter of FILTERS) {
    it(`${filter.name}: accepts the types it has a meaning for, refuses the others at the property it names`, () => {
      for (const p of PROPERTIES) {
        const found = findingsOf(filter, p);
        if (applies(filter.kind, p)) {
          expect(found, `${filter.name} on ${p.declared}`).to.deep.equal([]);
          continue;
        }
        expect(found, `${filter.name} on ${p.declared}`).to.have.length(1);
        // The name in `properties`: a map's key, or a string in a list.
        expect(found[0]).to.include({ code: 'filter-property-type', at: filter.setting ? p.name : `"${p.name}"` });
        expect(found[0]!.message).to.match(
          new RegExp(
            `^${filter.kind} filter '${filter.name}' applies to .*, but '${p.name}' of 'Thing' is ${p.declared.replace(/[[\]]/g, '\\$&')}`,
          ),
        );
      }
    });
  }

  it('refuses a named parameter feeding a filter a property it has no meaning for, at the parameter', () => {
    const text = [
      'filter b: boolean { properties: ["done"] }',
      'resource Thing {',
      '  properties {\n    id: int { identifier: true }\n    done: bool\n    title: string\n  }',
      '  operations {\n    GetCollection { parameters: { q: { filter: "b", property: "title" } } }\n  }',
      '}',
    ].join('\n');
    const errors = check(text).all.filter((d) => d.severity === 'error');
    expect(errors.map((d) => [d.code, text.slice(d.range.start, d.range.end)])).to.deep.equal([
      ['filter-property-type', '"title"'],
    ]);
  });
});

// ---- Values ---------------------------------------------------------------------------------------

const TEXT_CHARS = ['a', 'b', 'A', 'B', ' ', 'é', 'É', '.'];
const DATETIMES = ['2024-01-01T00:00:00Z', '2024-01-01T12:30:00Z', '2024-06-15T08:00:00Z', '2025-02-28T23:59:59Z'];
const DATES = ['2024-01-01', '2024-06-15', '2025-02-28'];
const TARGETS = ['/targets/1', '/targets/2', '/targets/3'];

function scalarArb(base: Base): fc.Arbitrary<unknown> {
  switch (base) {
    case 'int':
      return fc.integer({ min: -3, max: 3 });
    case 'number':
      return fc.constantFrom(-1.5, 0, 0.25, 2, 2.5);
    case 'string':
      return fc
        .tuple(fc.constantFrom('a', 'b', 'A', 'é', 'É'), fc.array(fc.constantFrom(...TEXT_CHARS), { maxLength: 4 }))
        .map(([head, tail]) => head + tail.join(''));
    case 'bool':
      return fc.boolean();
    case 'datetime':
      return fc.constantFrom(...DATETIMES);
    case 'date':
      return fc.constantFrom(...DATES);
    case 'json':
      return fc.constantFrom({ a: 1 }, [1, 'x'], 'text', 3, true);
    case 'relation':
      return fc.constantFrom(...TARGETS);
  }
}

function valueArb(p: GridProperty): fc.Arbitrary<unknown> {
  const one = p.list ? fc.array(scalarArb(p.base), { minLength: p.required ? 1 : 0, maxLength: 3 }) : scalarArb(p.base);
  return p.required ? one : fc.oneof(one, fc.constant(undefined), fc.constant(null));
}

const itemArb: fc.Arbitrary<Record<string, unknown>> = fc.record(
  Object.fromEntries(PROPERTIES.map((p) => [p.name, valueArb(p)])),
);

type Gen = fc.GeneratorValue;

/** The scalar values the items hold for a property (list elements one by one). */
function heldValues(p: GridProperty, items: Item[]): unknown[] {
  return items
    .flatMap((i) => (Array.isArray(i[p.name]) ? (i[p.name] as unknown[]) : [i[p.name]]))
    .filter((v) => v != null);
}

/** A criterion value for a search on `p`: one the items hold (or a part of it), or another of its type. */
function searchValue(g: Gen, p: GridProperty, strategy: string, items: Item[]): string {
  const held = heldValues(p, items);
  const v = held.length > 0 && g(fc.boolean) ? g(() => fc.constantFrom(...held)) : g(() => scalarArb(p.base));
  switch (p.base) {
    case 'string': {
      const s = v as string;
      let part = s;
      if (!strategy.endsWith('exact')) {
        const start = g(() => fc.integer({ min: 0, max: s.length - 1 }));
        part = s.slice(
          start,
          g(() => fc.integer({ min: start + 1, max: s.length })),
        );
      }
      return strategy.startsWith('i') && g(fc.boolean) ? part.toUpperCase() : part;
    }
    case 'bool':
      return g(() => fc.constantFrom(...(v ? ['true', '1'] : ['false', '0'])));
    case 'relation':
      return g(fc.boolean) ? (v as string) : (v as string).split('/').pop()!;
    case 'datetime': // the stored form or the written one: the same instant
    case 'date':
    case 'int':
    case 'number':
    default:
      return String(v);
  }
}

/** One value for each required grid property. */
function requiredValues(): Record<string, unknown> {
  const one: Record<Base, unknown> = {
    int: 0,
    number: 0,
    string: 'a',
    bool: false,
    datetime: DATETIMES[0],
    date: DATES[0],
    json: { a: 1 },
    relation: TARGETS[0],
  };
  return Object.fromEntries(
    PROPERTIES.filter((p) => p.required).map((p) => [p.name, p.list ? [one[p.base]] : one[p.base]]),
  );
}

const INVALID: Record<Base, string> = {
  int: '2.0',
  number: 'abc',
  string: '',
  bool: 'maybe',
  datetime: 'not-a-date',
  date: '2024-13-45',
  json: '',
  relation: 'nope',
};

const bound = (g: Gen, base: Base): string =>
  g(() =>
    base === 'datetime' || base === 'date'
      ? fc.constantFrom(...DATETIMES, ...DATES)
      : fc.constantFrom('-3', '-1.5', '0', '0.25', '1', '2', '2.5', '3'),
  );

/** A valid criterion of the filter on the property. */
function validRaw(g: Gen, f: GridFilter, p: GridProperty, items: Item[]): Raw {
  switch (f.kind) {
    case 'search': {
      const values = Array.from({ length: g(() => fc.integer({ min: 1, max: 2 })) }, () =>
        searchValue(g, p, f.setting!, items),
      );
      return values.length === 1 ? values[0]! : values;
    }
    case 'range': {
      const op = g(() => fc.constantFrom('gt', 'gte', 'lt', 'lte', 'between'));
      const value = op === 'between' ? [bound(g, p.base), bound(g, p.base)].sort().join('..') : bound(g, p.base);
      return { [op]: value };
    }
    case 'date':
      return { [g(() => fc.constantFrom('after', 'before', 'strictly_after', 'strictly_before'))]: bound(g, p.base) };
    case 'order':
      return g(() => fc.constantFrom('asc', 'desc', 'DESC'));
    case 'exists':
    case 'boolean':
      return g(() => fc.constantFrom('true', 'false', '1', '0'));
  }
}

/** A value the filter ignores (API Platform's filters ignore malformed values): every item is kept. */
function invalidRaw(g: Gen, f: GridFilter, p: GridProperty): Raw | undefined {
  switch (f.kind) {
    case 'search':
      if (g(fc.boolean)) return { nested: 'x' }; // an object where a value is expected
      return INVALID[p.base] === '' ? undefined : INVALID[p.base];
    case 'range':
      return g(() => fc.constantFrom<Raw>({ gt: 'abc' }, { between: '1..2..3' }, { near: '1' }, '5'));
    case 'date':
      return g(() => fc.constantFrom<Raw>({ after: 'not-a-date' }, { around: DATES[0]! }, DATES[0]!));
    case 'order':
      return 'sideways';
    case 'exists':
    case 'boolean':
      return g(() => fc.constantFrom('maybe', 'yes please', ''));
  }
}

// ---- The served grid ------------------------------------------------------------------------------

describe('HTTP filters: every kind on every property type, GET and QUERY', function () {
  this.timeout(600_000);
  const dir = tempDir('apidsl-filter-grid-');
  const file = join(dir, 'grid.api');
  writeFileSync(file, apiFile(ACCEPTED));
  const server = useServer(file);
  let batch = 0;

  before(async () => {
    for (const name of ['one', 'two', 'three']) {
      const r = await request(server.url, 'POST', '/targets', { body: { name } });
      expect(r.status, r.text).to.equal(201);
    }
  });

  it('the generated file passes apidsl check', () => {
    const r = runCli(['check', file]);
    expect(r.status, r.stdout + r.stderr).to.equal(0);
  });

  it('searches lists element by element: exact holds the value, the other strategies match an element', async () => {
    const listBatch = 1_000_000; // apart from the batches of the property test
    const ids: number[] = [];
    for (const [strings, relations] of [
      [
        ['Red', 'green tea'],
        ['/targets/1', '/targets/2'],
      ],
      [['blue', 'Dark red'], ['/targets/3']],
      [[], []],
    ]) {
      const body = { ...requiredValues(), batch: listBatch, strings_n: strings, relations_n: relations };
      const r = await request(server.url, 'POST', '/things', { body });
      expect(r.status, r.text).to.equal(201);
      ids.push(r.json.id as number);
    }
    const [a, b] = ids;
    const found = async (filter: string, c: Record<string, unknown>): Promise<number[]> => {
      const viaGet = await get(server.url, `/grid/${filter}?${queryString({ ...c, batch: String(listBatch) })}`);
      const viaQuery = await request(server.url, 'QUERY', `/grid/${filter}`, {
        body: { ...c, batch: listBatch },
        headers: { 'Content-Type': 'application/json' },
      });
      expect([viaGet.status, viaQuery.status], viaGet.text + viaQuery.text).to.deep.equal([200, 200]);
      expect(memberIds(viaQuery.json)).to.deep.equal(memberIds(viaGet.json));
      return memberIds(viaGet.json);
    };
    expect(await found('search_exact', { strings_n: 'Red' })).to.deep.equal([a]);
    expect(await found('search_exact', { strings_n: 'red' })).to.deep.equal([]);
    expect(await found('search_iexact', { strings_n: 'red' })).to.deep.equal([a]);
    expect(await found('search_exact', { strings_n: ['Red', 'blue'] })).to.deep.equal([a, b]);
    expect(await found('search_partial', { strings_n: 'red' })).to.deep.equal([b]);
    expect(await found('search_ipartial', { strings_n: 'RED' })).to.deep.equal([a, b]);
    expect(await found('search_start', { strings_n: 'gre' })).to.deep.equal([a]);
    expect(await found('search_end', { strings_n: 'tea' })).to.deep.equal([a]);
    expect(await found('search_word_start', { strings_n: 're' })).to.deep.equal([b]);
    expect(await found('search_partial', { strings_n: 'tea blue' })).to.deep.equal([]); // never across elements
    expect(await found('search_exact', { relations_n: '/targets/3' })).to.deep.equal([b]);
    expect(await found('search_exact', { relations_n: ['1', '3'] })).to.deep.equal([a, b]);
    expect(await found('exists', { exists: { strings_n: 'false' } })).to.deep.equal([ids[2]]);
    expect(await found('exists', { exists: { relations_n: 'true' } })).to.deep.equal([a, b]);
  });

  it('advertises search on lists as API Platform does: p and p[] in the Hydra template and OpenAPI', async () => {
    const r = await get(server.url, '/grid/search_partial');
    expect(r.status, r.text).to.equal(200);
    const variables = (r.json.search.mapping as { variable: string }[]).map((m) => m.variable);
    expect(variables).to.include.members(['strings_n', 'strings_n[]', 'relations_r', 'relations_r[]']);
    expect(r.json.search.template).to.contain('strings_n,strings_n[]');
    const doc = await get(server.url, '/docs.json');
    const op = doc.json.paths['/grid/search_partial'].get;
    const param = (name: string) => op.parameters.find((x: { name: string }) => x.name === name);
    expect(param('strings_n').schema).to.deep.equal({ type: 'string' });
    expect(param('strings_n[]')).to.deep.include({ style: 'form', explode: true });
    expect(param('strings_n').description).to.match(/has an element/);
  });

  it('ignores values of shapes no filter reads, on GET and QUERY, never a 5xx', async () => {
    const cells = ACCEPTED.flatMap(({ filter, props }) => props.map((prop) => ({ filter, prop })));
    const cases = cells.flatMap((cell) => ODD_VALUES.map((odd) => ({ ...cell, odd })));
    await inParallel(cases, 6, async ({ filter, prop, odd }) => {
      const c = criteria(filter, prop, odd as Raw);
      const path = `/grid/${filter.name}`;
      const what = `${filter.name} on ${prop.name} with ${JSON.stringify(odd).slice(0, 40)}`;
      const viaQuery = await request(server.url, 'QUERY', path, {
        body: c,
        headers: { 'Content-Type': 'application/json' },
      });
      expect(viaQuery.status, `QUERY ${what}: ${viaQuery.text}`).to.equal(200);
      if (odd === null) return; // a URL has no null
      const viaGet = await get(server.url, `${path}?${queryString(c)}`);
      expect(viaGet.status, `GET ${what}: ${viaGet.text}`).to.equal(200);
    });
  });

  it('answers every cell with the reference result, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(itemArb, { minLength: 2, maxLength: 6 }), fc.gen(), async (bodies, g) => {
        batch += 1;
        const items: Item[] = [];
        for (const body of bodies) {
          const r = await request(server.url, 'POST', '/things', { body: { ...body, batch } });
          expect(r.status, `POST ${JSON.stringify(body)}: ${r.text}`).to.equal(201);
          // Every value sent is kept (so that the reference reads what the filters read).
          for (const p of PROPERTIES) if (body[p.name] != null) expect(r.json, p.name).to.have.property(p.name);
          items.push(r.json as Item);
        }
        const cases: { filter: GridFilter; prop: GridProperty; raw: Raw }[] = [];
        for (const { filter, props } of ACCEPTED) {
          for (const prop of props) {
            cases.push({ filter, prop, raw: validRaw(g, filter, prop, items) });
            const invalid = invalidRaw(g, filter, prop);
            if (invalid !== undefined) cases.push({ filter, prop, raw: invalid });
          }
        }
        await inParallel(cases, 6, async ({ filter, prop, raw }) => {
          const expected = reference(filter, prop, raw, items).map((i) => i.id);
          const c = criteria(filter, prop, raw);
          const path = `/grid/${filter.name}`;
          const what = `${filter.name} on ${prop.name} (${prop.declared}) with ${JSON.stringify(raw)}`;
          const viaGet = await get(server.url, `${path}?${queryString({ ...c, batch: String(batch) })}`);
          expect(viaGet.status, `GET ${what}: ${viaGet.text}`).to.equal(200);
          expect(memberIds(viaGet.json), `GET ${what}`).to.deep.equal(expected);
          // A JSON body may carry numbers and booleans as such: they read as their text.
          const viaQuery = await request(server.url, 'QUERY', path, {
            body: { ...(jsonTyped(c) as object), batch },
            headers: { 'Content-Type': 'application/json' },
          });
          expect(viaQuery.status, `QUERY ${what}: ${viaQuery.text}`).to.equal(200);
          expect(memberIds(viaQuery.json), `QUERY ${what}`).to.deep.equal(expected);
          // The same criterion through the named parameter that feeds the filter this property.
          const named = { [PARAMETER(prop)]: raw };
          const namedPath = `/named/${filter.name}`;
          const namedGet = await get(server.url, `${namedPath}?${queryString({ ...named, batch: String(batch) })}`);
          expect(namedGet.status, `GET named ${what}: ${namedGet.text}`).to.equal(200);
          expect(memberIds(namedGet.json), `GET named ${what}`).to.deep.equal(expected);
          const namedQuery = await request(server.url, 'QUERY', namedPath, {
            body: { ...named, batch },
            headers: { 'Content-Type': 'application/json' },
          });
          expect(namedQuery.status, `QUERY named ${what}: ${namedQuery.text}`).to.equal(200);
          expect(memberIds(namedQuery.json), `QUERY named ${what}`).to.deep.equal(expected);
        });
      }),
      { numRuns: RUNS, endOnFailure: true },
    );
  });
});

/** Strings that are JSON numbers or booleans written the way JSON writes them (`2`, `-1.5`, `true`) as such. */
function jsonTyped(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(jsonTyped);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, jsonTyped(x)]));
  if (typeof v !== 'string' || !/^(-?\d+(\.\d+)?|true|false)$/.test(v)) return v;
  const parsed: unknown = JSON.parse(v);
  return String(parsed) === v ? parsed : v;
}

/** Values of shapes no filter reads (nested lists, objects, nulls, long lists): never a 5xx, the criterion ignored. */
const ODD_VALUES: unknown[] = [
  [['a']],
  [{ a: 1 }],
  { gt: { x: 1 } },
  null,
  { between: ['1', '2'] },
  [null],
  'x'.repeat(5000),
];

const memberIds = (json: { member: { id: number }[] }): number[] => json.member.map((m) => m.id);

/** Runs `task` on every case, `width` at a time. */
async function inParallel<T>(cases: T[], width: number, task: (c: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < cases.length) await task(cases[next++]!);
  };
  await Promise.all(Array.from({ length: width }, worker));
}
