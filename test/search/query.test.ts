/**
 * The search index's query (server/search/query.ts) fails closed on disjunctions: a scope's `or`, an `in` on a
 * date and a keyset bound are written without `should` clauses, so that no engine's reading of
 * `minimum_should_match` (Elasticsearch lets a document matching none through when it is 0, or absent beside a
 * filter; ZincSearch takes 0 as 1) can widen a scope. Each translated query is asked of a real ZincSearch and must
 * answer what the conditions, evaluated here, select.
 */
import { expect } from 'chai';
import { loadApi } from '../../server/load-api.js';
import { indexMapping } from '../../server/search/mapping.js';
import { QueryTranslator, UntranslatableCondition } from '../../server/search/query.js';
import type { Condition } from '../../server/store/types.js';
import { eventually } from '../support/eventually.js';
import { fromRoot } from '../support/paths.js';
import { ZINC_PASSWORD, ZINC_USER, zincOrSkip, type ZincServer } from '../support/zincsearch.js';

type Doc = { id: number; owner: string; title: string; status: string | null; shop: string | null };

const DOCS: Doc[] = [
  { id: 1, owner: 'ann', title: 'one', status: 'open', shop: '/shops/1' },
  { id: 2, owner: 'bob', title: 'two', status: 'hidden', shop: '/shops/2' },
  { id: 3, owner: 'carl', title: 'three', status: null, shop: null },
  { id: 4, owner: 'ann', title: 'four', status: 'hidden', shop: '/shops/2' },
  // At and below 0: ZincSearch's numeric range never matches such a value.
  { id: 0, owner: 'dan', title: 'zero', status: 'open', shop: null },
  { id: -3, owner: 'eve', title: 'minus three', status: null, shop: '/shops/1' },
];

const eq = (field: keyof Doc, value: unknown): Condition => ({ op: 'eq', field, value });
const or = (...conditions: Condition[]): Condition => ({ op: 'or', conditions });
const and = (...conditions: Condition[]): Condition => ({ op: 'and', conditions });

/** The conditions' meaning on a document (eq, in, lt, gt, and, or), as the store answers them. */
function holds(c: Condition, d: Doc): boolean {
  switch (c.op) {
    case 'eq':
      return d[c.field as keyof Doc] === c.value;
    case 'in':
      return c.values.includes(d[c.field as keyof Doc]);
    case 'lt':
      return (d[c.field as keyof Doc] as number) < (c.value as number);
    case 'lte':
      return (d[c.field as keyof Doc] as number) <= (c.value as number);
    case 'gt':
      return (d[c.field as keyof Doc] as number) > (c.value as number);
    case 'gte':
      return (d[c.field as keyof Doc] as number) >= (c.value as number);
    case 'and':
      return c.conditions.every((x) => holds(x, d));
    case 'or':
      return c.conditions.some((x) => holds(x, d));
    default:
      throw new Error(`not in this test: ${c.op}`);
  }
}

/** Whether a clause, at any depth, holds a `should` (and so depends on `minimum_should_match`). */
const hasShould = (clause: unknown): boolean =>
  typeof clause === 'object' &&
  clause !== null &&
  Object.entries(clause).some(([key, value]) => key === 'should' || hasShould(value));

describe('the search index query fails closed on disjunctions (ZincSearch)', function () {
  this.timeout(120_000);
  let engine: ZincServer;
  let translator: QueryTranslator;
  let elasticsearch: QueryTranslator;
  const index = `query_test_${process.pid}`;
  const auth = `Basic ${Buffer.from(`${ZINC_USER}:${ZINC_PASSWORD}`).toString('base64')}`;
  const send = async (method: string, path: string, body: unknown): Promise<any> => {
    const r = await fetch(`${engine.url}${path}`, {
      method,
      headers: { Authorization: auth, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    return r.json();
  };
  const search = async (where: Condition[]): Promise<number[]> => {
    const answer = await send('POST', `/${index}/_search`, { query: translator.query({ where }), size: 100 });
    return (answer.hits.hits as { _source: Doc }[]).map((h) => h._source.id).sort((a, b) => a - b);
  };

  before(async function () {
    engine = await zincOrSkip(this);
    const api = await loadApi(fromRoot('test/fixtures/elasticsearch/scoped-notes.api'));
    const note = api.resource('Note')!;
    translator = new QueryTranslator(note, 'zincsearch');
    elasticsearch = new QueryTranslator(note, 'elasticsearch');
    await send('PUT', `/${index}`, { mappings: indexMapping(note, 'zincsearch') });
    for (const d of DOCS) await send('PUT', `/${index}/_doc/${d.id}`, d);
    await eventually(
      () => search([]),
      (ids) => ids.length === DOCS.length,
    );
  });

  const cases: [string, Condition[]][] = [
    ['an or of two owners', [or(eq('owner', 'ann'), eq('owner', 'carl'))]],
    ['an or beside another filter', [eq('status', 'hidden'), or(eq('owner', 'ann'), eq('shop', '/shops/1'))]],
    ['an or inside an and inside an or', [or(and(eq('owner', 'bob'), eq('status', 'hidden')), eq('title', 'three'))]],
    ['an or of nothing', [or()]],
    ['an or that matches nothing', [or(eq('owner', 'dan'), eq('owner', 'eve'))]],
    ['an in', [{ op: 'in', field: 'owner', values: ['bob', 'carl'] }]],
  ];
  for (const [name, where] of cases)
    it(`${name}: no should clause, and the engine answers what the conditions select`, async () => {
      expect(hasShould(translator.query({ where })), JSON.stringify(translator.query({ where }))).to.equal(false);
      const expected = DOCS.filter((d) => where.every((c) => holds(c, d))).map((d) => d.id);
      expect(await search(where)).to.deep.equal(expected.sort((a, b) => a - b));
    });

  it('a keyset bound (cursor pages) has no should clause, and pages past the tuple', async () => {
    // ZincSearch ranges numbers and times only: the cursor is on the identifier.
    const query = translator.query({ where: [], sort: [{ field: 'id', direction: 'asc' }], after: { values: [2] } });
    expect(hasShould(query)).to.equal(false);
    const answer = await send('POST', `/${index}/_search`, { query, size: 100 });
    expect((answer.hits.hits as { _source: Doc }[]).map((h) => h._source.id).sort()).to.deep.equal([3, 4]);
  });

  it("asks the engine a bound only where its answer is the store's, for every bound and value", async () => {
    // ZincSearch drops a bound at or below 0 and never ranges a value at or below 0 (`lte: 0` matched 1 to 4).
    const ops = ['lt', 'lte', 'gt', 'gte'] as const;
    const asked: string[] = [];
    for (const op of ops)
      for (const value of [-5, -3, -0.5, 0, 0.5, 1, 2, 4, 10]) {
        const where: Condition[] = [{ op, field: 'id', value }];
        const name = `id ${op} ${value}`;
        expect(elasticsearch.answers({ where }), name).to.equal(true);
        if (!translator.answers({ where })) {
          expect(() => translator.query({ where }), name).to.throw(UntranslatableCondition);
          continue;
        }
        asked.push(name);
        const expected = DOCS.filter((d) => holds(where[0]!, d)).map((d) => d.id);
        expect([name, await search(where)]).to.deep.equal([name, expected.sort((a, b) => a - b)]);
      }
    // Positive lower bounds are the engine's; every other bound goes to the store.
    expect(asked).to.deep.equal(['gt', 'gte'].flatMap((op) => [0.5, 1, 2, 4, 10].map((v) => `id ${op} ${v}`)));
    // A keyset bound the same way: after id 2 ascending is asked, descending or after 0 is not; nor is a stream's.
    const sort = (direction: 'asc' | 'desc') => [{ field: 'id', direction }];
    expect(translator.answers({ sort: sort('asc'), after: { values: [2] } })).to.equal(true);
    expect(translator.answers({ sort: sort('desc'), after: { values: [2] } })).to.equal(false);
    expect(translator.answers({ sort: sort('asc'), after: { values: [0] } })).to.equal(false);
    expect(translator.answers({ sort: sort('asc') }, true)).to.equal(false);
    // No string is ranged on ZincSearch (it refuses the query): the store answers; Elasticsearch is asked.
    const title: Condition[] = [{ op: 'gt', field: 'title', value: 'm' }];
    expect([translator.answers({ where: title }), elasticsearch.answers({ where: title })]).to.deep.equal([
      false,
      true,
    ]);
    expect(translator.answers({ sort: [{ field: 'title', direction: 'asc' }] }, true)).to.equal(false);
    expect(translator.answers({ sort: [{ field: 'title', direction: 'asc' }] })).to.equal(true);
    const refused = await send('POST', `/${index}/_search`, { query: elasticsearch.query({ where: title }) });
    expect(refused.error?.cause, JSON.stringify(refused)).to.contain('only support values of [numeric, time]');
  });
});
