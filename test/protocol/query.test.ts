/**
 * Query-string parsing (server/protocol/query.ts): queries without brackets take a fast path that must give
 * exactly what qs gives, which bracketed ones still go through. Parameters given as name and value pairs (GraphQL,
 * MCP) read as their encoded query string does.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import qs from 'qs';
import { parseQuery, queryOf } from '../../server/protocol/query.js';

const viaQs = (query: string): unknown => qs.parse(query, { depth: 5, parameterLimit: 1000, arrayLimit: 100 });

/** Pieces that exercise every rule: separators, escapes good and bad, plus, prototype names, brackets. */
const piece = fc.constantFrom(
  'a',
  'b',
  'page',
  '=',
  '&',
  '+',
  '%',
  '%2',
  '%20',
  '%3D',
  '%26',
  '%E2%9C%93',
  '%C3',
  '%zz',
  'é',
  ' ',
  '.',
  'toString',
  '__proto__',
  'constructor',
  'hasOwnProperty',
  '[',
  ']',
  '%5B',
  '%5d',
  '[]',
  '1',
  '',
);
const queries = fc.array(piece, { maxLength: 16 }).map((pieces) => pieces.join(''));

describe('query strings', () => {
  it('parses like qs on 5,000 random queries, bracketed or not', () => {
    fc.assert(
      fc.property(queries, (query) => {
        expect(parseQuery(query), query).to.deep.equal(viaQs(query));
        expect(parseQuery(`?${query}`), `?${query}`).to.deep.equal(viaQs(query));
      }),
      { numRuns: 5_000 },
    );
  });

  it('parses like qs on the cases that matter', () => {
    const cases = [
      '',
      'page=2',
      'a=1&a=2&a=3',
      'a',
      'a=&b',
      '=x&&b=1',
      'q=a+b%20c',
      'bad=%E0%A4%A',
      'toString=1&__proto__=2&x=3',
      'order[id]=desc&page=2',
      'a%5Bb%5D=1',
    ];
    for (const query of cases) expect(parseQuery(query), query).to.deep.equal(viaQs(query));
    expect(parseQuery('a=1&a=2&page=3')).to.deep.equal({ a: ['1', '2'], page: '3' });
  });

  it('ignores parameters past the 1,000th, as qs does', () => {
    const query = Array.from({ length: 1_005 }, (_, i) => `p${i}=${i}`).join('&');
    const parsed = parseQuery(query);
    expect(Object.keys(parsed)).to.have.length(1_000);
    expect(parsed).to.deep.equal(viaQs(query));
  });

  it('reads name and value pairs as parseQuery reads their query string, on 5,000 random pairs', () => {
    const text = fc.array(piece, { maxLength: 4 }).map((pieces) => pieces.join(''));
    const encoded = (pairs: [string, string][]) =>
      pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
    fc.assert(
      fc.property(fc.array(fc.tuple(text, text), { maxLength: 8 }), (pairs) => {
        expect(queryOf(pairs), JSON.stringify(pairs)).to.deep.equal(parseQuery(encoded(pairs)));
      }),
      { numRuns: 5_000 },
    );
    const filters: [string, string][] = [
      ['title', 'a b'],
      ['tags[]', 'x'],
      ['order[title]', 'asc'],
      ['order[price]', 'desc'],
      ['price[gt]', '5'],
      ['author.name', 'Ann'],
      ['title', 'c&d'],
    ];
    expect(queryOf(filters)).to.deep.equal({
      title: ['a b', 'c&d'],
      tags: ['x'],
      order: { title: 'asc', price: 'desc' },
      price: { gt: '5' },
      'author.name': 'Ann',
    });
    expect(queryOf(filters)).to.deep.equal(parseQuery(encoded(filters)));
  });
});
