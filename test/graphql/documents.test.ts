/** Query texts parsed once and bounded in nesting before the parser sees them (server/graphql/documents.ts). */
import { expect } from 'chai';
import { preparedDocuments } from '../../server/graphql/documents.js';

describe('GraphQL documents', () => {
  const documents = preparedDocuments(1_000_000);

  it('parses a text once: the same text gives the same document', () => {
    const text = '{ books { edges { node { id } } } }';
    expect(documents.parse(text)).to.equal(documents.parse(text));
  });

  it('refuses a text nested deeper than 500 levels, every time, before parsing it', () => {
    const deep = (levels: number) => `${'{ a '.repeat(levels)}${'}'.repeat(levels)}`;
    expect(() => documents.parse(deep(500))).to.not.throw();
    for (let i = 0; i < 3; i++) expect(() => documents.parse(deep(501))).to.throw(RangeError, /nested deeper than 500/);
  });

  it('does not count brackets inside strings and comments', () => {
    const brackets = '['.repeat(600);
    const text = `{ books(title: "${brackets}") { id } # ${brackets}\n author(bio: """${brackets}""") { id } }`;
    expect(() => documents.parse(text)).to.not.throw();
  });
});
