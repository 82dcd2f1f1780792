/**
 * Member texts written straight from items (server/pipeline/representation/member-text.ts): byte for byte what
 * JSON.stringify gives for normalizeItem's object, whatever the values (strings to escape, lone surrogates, numbers
 * JSON writes as null, nested values), the properties hidden and the relations' output; and no writer where an
 * object would order its keys otherwise.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { codePointString } from '../../support/code-points.js';
import type { PropertyMetadata, ResourceMetadata } from '../../../server/metadata/types.js';
import { memberText } from '../../../server/pipeline/representation/member-text.js';
import { normalizeItem, type RelationOutput } from '../../../server/pipeline/representation/normalize.js';
import type { Item } from '../../../server/store/types.js';
import { property } from '../../support/metadata.js';

const resourceOf = (properties: PropertyMetadata[]): ResourceMetadata =>
  ({ name: 'Book', shortName: 'Book', properties }) as unknown as ResourceMetadata;

const expected = (
  shown: PropertyMetadata[],
  item: Item,
  jsonld: boolean,
  iri: string,
  hidden?: ReadonlySet<string>,
  relation?: RelationOutput,
): string =>
  JSON.stringify(normalizeItem(resourceOf(shown), item, jsonld, () => iri, shown, hidden, relation, 'Shelf "A"'));

const name = codePointString({ minLength: 1, maxLength: 6 }).filter(
  (n) => !/^\d+$/.test(n) && n !== '__proto__' && !n.startsWith('@'),
);
// Characters JSON escapes, lone surrogates among them (a pair is kept as it is), beside any others.
const character = fc.oneof(
  fc.constantFrom('"', '\\', '\u0000', '\u001f', '\ud800', '\udbff', '\udc00', '\udfff', '\ud83d\ude00', '\u2028'),
  codePointString({ minLength: 1, maxLength: 1 }),
);
const value = fc.oneof(
  fc.string({ unit: character }),
  fc.string(),
  fc.double(),
  fc.integer(),
  fc.constantFrom(NaN, Infinity, -Infinity, -0, 1e21, 5e-7, true, false, null, undefined),
  fc.jsonValue(),
  fc.date({ noInvalidDate: true }),
);

describe('member texts', () => {
  it('are what JSON.stringify gives for normalizeItem, on 2,000 random items, JSON-LD and JSON', () => {
    const names = fc.uniqueArray(name, { minLength: 1, maxLength: 8 });
    fc.assert(
      fc.property(
        names.chain((ns) =>
          fc.tuple(
            fc.constant(ns),
            fc.tuple(...ns.map(() => value)),
            fc.subarray(ns),
            fc.boolean(),
            fc.string({ unit: character }),
          ),
        ),
        ([ns, values, hiddenNames, jsonld, iri]) => {
          const shown = ns.map((n, i) => property(n, 'string', i % 3 === 2 ? { relation: 'Author' } : {}));
          const item: Item = Object.fromEntries(ns.map((n, i) => [n, values[i]]));
          const hidden = new Set(hiddenNames);
          // A relation's output may change the value, or leave it out.
          const relation: RelationOutput = (p, v) => (typeof v === 'string' ? undefined : { '@id': p.name, v });
          const write = memberText(shown, jsonld, 'Shelf "A"')!;
          expect(write(item, iri)).to.equal(expected(shown, item, jsonld, iri));
          expect(write(item, iri, hidden, relation)).to.equal(expected(shown, item, jsonld, iri, hidden, relation));
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('writes the page of the benchmark as JSON.stringify does', () => {
    const shown = ['id', 'title', 'author', 'price'].map((n) => property(n, n === 'title' ? 'string' : 'int'));
    const item = { id: 31, title: 'Book 30 \u00e9\ud83d\ude00 "q" \\', author: 'Author\n30', price: 0.3 };
    expect(memberText(shown, true, 'Shelf "A"')!(item, '/books/31')).to.equal(expected(shown, item, true, '/books/31'));
  });

  it('leaves to normalizeItem the names an object would put elsewhere: indices, @id and @type, __proto__', () => {
    for (const n of ['0', '12', '__proto__']) {
      expect(memberText([property('a', 'string'), property(n, 'string')], false, 'Book')).to.equal(undefined);
      expect(memberText([property(n, 'string')], true, 'Book')).to.equal(undefined);
    }
    expect(memberText([property('@id', 'string')], true, 'Book')).to.equal(undefined);
    expect(memberText([property('@type', 'string')], true, 'Book')).to.equal(undefined);
    expect(memberText([property('@id', 'string')], false, 'Book')).to.be.a('function');
    expect(memberText([property('01', 'string')], true, 'Book')).to.be.a('function');
  });
});
