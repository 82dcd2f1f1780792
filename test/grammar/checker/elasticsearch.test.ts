/**
 * The checker on `elasticsearch` (docs/elasticsearch.md): accepted without a "not supported" warning; on an
 * operation that reads the index, filters the index cannot answer are errors; match and term filters on
 * operations that read the store are errors; an indexed resource needs an identifier; the option on a write,
 * or beside a custom provider, has no effect; `stateOptions.index` is checked and its other keys are hints.
 */
import { expect } from 'chai';
import { check } from '../../../grammar/checker/index.js';

const found = (text: string): [string, string, string][] =>
  check(text, { fileExists: () => true }).all.map((d) => [d.code, d.severity, d.message]);

const FILTERS = `filter m: match { properties: ["title"] }
filter t: term { properties: ["isbn"] }
filter o: order { properties: ["title"] }
filter r: range { properties: ["price"] }
filter s: search { properties: ["title"] }
filter e: exists { properties: ["title"] }
`;
const PROPS = 'properties { id: int { identifier: true }, title: string, isbn: string, price: number }';

describe('checker: elasticsearch', () => {
  it('accepts index-backed reads with match, term, order and range filters, and the config settings', () => {
    const text = `config { elasticsearch { hosts: ["http://127.0.0.1:9200"], username_env: "U", password_env: "P", index_prefix: "shop_", timeout: 500 } }
${FILTERS}
resource Book {
  elasticsearch: true
  stateOptions: { index: "books_v2" }
  ${PROPS}
  operations { GetCollection { filters: [m, t, o, r] }, Get, Post, Delete }
}`;
    expect(found(text)).to.deep.equal([]);
  });

  it('refuses the filters the index cannot answer on an index read, naming the ones it can', () => {
    const result = found(`${FILTERS}
resource Book { elasticsearch: true, ${PROPS}, operations { GetCollection { filters: [m, s, e] } } }`);
    expect(result.map((f) => f.slice(0, 2))).to.deep.equal([
      ['index-filter', 'error'],
      ['index-filter', 'error'],
    ]);
    expect(result[0][2]).to.equal(
      "filter 's' (search) cannot be answered by the search index that GetCollection of 'Book' reads (elasticsearch: true): use match, term, order or range filters",
    );
    expect(result[1][2]).to.contain("filter 'e' (exists)");
  });

  it('refuses match and term filters on an operation that reads the store, also beside an index read', () => {
    const result = found(`${FILTERS}
resource Book {
  ${PROPS}
  operations {
    GetCollection { filters: [t, o] }
    GetCollection fromIndex { uriTemplate: "/indexed-books", elasticsearch: true, filters: [m] }
  }
}`);
    expect(result).to.deep.equal([
      [
        'index-filter',
        'error',
        "filter 't' (term) is answered by the search index only, and GetCollection of 'Book' reads the store: set elasticsearch: true on it or its resource",
      ],
    ]);
  });

  it('refuses an indexed resource without an identifier', () => {
    const result = found(
      'resource Note { elasticsearch: true, properties { text: string }, operations { GetCollection } }',
    );
    expect(result.map((f) => f.slice(0, 2))).to.deep.equal([['index-identifier', 'error']]);
    expect(result[0][2]).to.contain("'Note' has no identifier");
  });

  it('says the option has no effect on a write or beside a provider, and is no longer "not supported"', () => {
    const result = found(`resource Book {
  ${PROPS}
  operations { Get { elasticsearch: true, provider: "./p.mjs#book" }, Post { elasticsearch: true }, GetCollection { elasticsearch: true } }
}`);
    expect(result.map((f) => f.slice(0, 2))).to.deep.equal([
      ['option-ineffective', 'warning'],
      ['option-ineffective', 'warning'],
    ]);
    expect(result[0][2]).to.contain('beside a custom provider');
    expect(result[1][2]).to.contain("'elasticsearch' on Post has no effect: only Get and GetCollection read the index");
    expect(result.some((f) => f[2].includes('not supported'))).to.equal(false);
  });

  it('checks stateOptions.index, and hints that its other keys have no effect', () => {
    const result =
      found(`resource Book { elasticsearch: true, stateOptions: { index: "Books!", entityClass: "App\\\\Book" }, ${PROPS} }
resource Note { stateOptions: { index: "notes" }, ${PROPS} }`);
    expect(result.map((f) => f[0])).to.deep.equal(['invalid-value', 'no-effect', 'option-ineffective']);
    expect(result[0][2]).to.contain("'stateOptions.index' must be an index name");
    expect(result[1][2]).to.equal("'stateOptions.entityClass' is accepted for compatibility; no effect in apidsl");
    expect(result[2][2]).to.contain("no operation of 'Note' reads the search index");
  });
});
