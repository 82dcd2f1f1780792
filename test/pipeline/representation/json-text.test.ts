/**
 * JSON text spliced into documents (server/pipeline/representation/json-text.ts): the result must be byte for byte what
 * JSON.stringify gives for the same document, the spliced value decoded.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { JsonText, jsonText, spliced } from '../../../server/pipeline/representation/json-text.js';

// Array-index keys ('0', '1') come first in any JS object, whatever the order they were added in; the
// documents spliced (Hydra collections) have none.
const isIndex = (k: string): boolean => /^(0|[1-9]\d*)$/.test(k);
const key = fc.string().filter((k) => !isIndex(k));
const record = fc.dictionary(key, fc.jsonValue());

describe('spliced JSON text', () => {
  it('is what JSON.stringify gives for the whole document, on 2,000 random documents', () => {
    fc.assert(
      fc.property(record, key, fc.jsonValue(), record, (head, key, value, tail) => {
        fc.pre(
          !Object.hasOwn(head, key) &&
            !Object.hasOwn(tail, key) &&
            Object.keys(head).every((k) => !Object.hasOwn(tail, k)),
        );
        const text = spliced(head, key, new JsonText(JSON.stringify(value)), tail).text;
        expect(text).to.equal(JSON.stringify({ ...head, [key]: value, ...tail }));
      }),
      { numRuns: 2_000 },
    );
  });

  it('handles empty sides', () => {
    expect(spliced({}, 'member', new JsonText('[]'), {}).text).to.equal('{"member":[]}');
    expect(spliced({ a: 1 }, 'member', new JsonText('[1]'), {}).text).to.equal('{"a":1,"member":[1]}');
    expect(spliced({}, 'member', new JsonText('[1]'), { b: 'x' }).text).to.equal('{"member":[1],"b":"x"}');
  });

  it('writes other bodies through JSON.stringify', () => {
    expect(jsonText({ a: [1, 'b'] })).to.equal('{"a":[1,"b"]}');
    expect(jsonText(new JsonText('{"x":1}'))).to.equal('{"x":1}');
  });
});
