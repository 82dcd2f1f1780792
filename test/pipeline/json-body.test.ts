/**
 * A body handed as a value (GraphQL's input, MCP's arguments: server/pipeline/representation/json-body.ts,
 * `checkedJsonValue`) is taken exactly as the same body sent as text would be (`parseJsonBody` of its JSON text):
 * the same value, or the same 400 (nesting over 128 levels, a lone surrogate in a value or a key), for any value.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { HttpError } from '../../server/protocol/errors.js';
import { checkedJsonValue, MAX_JSON_DEPTH, parseJsonBody } from '../../server/pipeline/representation/json-body.js';

/** The outcome of one road: the value taken, or the refusal's status and detail. */
function outcome(take: () => unknown): unknown {
  try {
    return { value: take() };
  } catch (e) {
    if (e instanceof HttpError) return { status: e.status, detail: e.detail };
    throw e;
  }
}

/** Strings around the surrogate range: lone high and low surrogates, pairs, and their neighbours. */
const edgyString = fc
  .array(fc.integer({ min: 0xd7f0, max: 0xe010 }), { maxLength: 4 })
  .map((units) => String.fromCharCode(...units));

const leaf = fc.oneof(
  edgyString,
  fc.string(),
  fc.double(),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
);

/** JSON-like values, keys included, with edgy strings; some nested around the depth limit. */
const { value } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    leaf,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.oneof(edgyString, fc.string()), tie('value'), { maxKeys: 3 }),
  ),
}));

/** `inner` inside `depth` arrays and objects. */
const nested = (depth: number, inner: unknown): unknown => {
  let v = inner;
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { k: v };
  return v;
};

describe('pipeline: a body handed as a value is taken as its text would be', () => {
  it('gives the same value or the same 400 as parsing its JSON text, for any value', () => {
    fc.assert(
      fc.property(value, (v) => {
        fc.pre(v !== undefined); // an adapter hands a body or none
        const text = JSON.stringify(v) ?? '';
        expect(outcome(() => checkedJsonValue(v))).to.deep.equal(outcome(() => parseJsonBody(text, 'Syntax error')));
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses a value nested deeper than the limit, as the text road does, and takes one at the limit', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: MAX_JSON_DEPTH - 3, max: MAX_JSON_DEPTH + 3 }),
        fc.oneof(fc.integer(), fc.string({ unit: 'grapheme' }), fc.constant(null)),
        (depth, inner) => {
          const v = nested(depth, inner);
          const taken = outcome(() => checkedJsonValue(v));
          expect(taken).to.deep.equal(outcome(() => parseJsonBody(JSON.stringify(v), 'Syntax error')));
          expect((taken as { status?: number }).status).to.equal(depth > MAX_JSON_DEPTH ? 400 : undefined);
        },
      ),
    );
  });

  it('hands the pipeline a copy: changing it leaves the adapter’s value as it was', () => {
    const given = { title: 't', tags: ['a'], meta: { n: 1 } };
    const taken = checkedJsonValue(given) as typeof given;
    taken.tags.push('b');
    taken.meta.n = 2;
    expect(given).to.deep.equal({ title: 't', tags: ['a'], meta: { n: 1 } });
  });

  it('keeps a key "__proto__" as an own property, as JSON.parse does', () => {
    const given = JSON.parse('{"__proto__": {"admin": true}, "x": 1}') as Record<string, unknown>;
    const taken = checkedJsonValue(given) as Record<string, unknown>;
    expect(Object.keys(taken)).to.deep.equal(['__proto__', 'x']);
    expect(Object.getPrototypeOf(taken)).to.equal(Object.prototype);
    expect((taken as { admin?: unknown }).admin).to.equal(undefined);
  });
});
