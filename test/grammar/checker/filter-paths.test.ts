/**
 * Filter properties through to-one relations (docs/behaviour.md, "Filters on related items"): `author.name` and
 * `book.author.name` are accepted for every filter kind that applies to the last property's type; an unknown part is
 * named with the closest property; a path through a list, a to-many relation or a plain property, deeper than two
 * relations, or on an order filter is refused with the reason.
 */
import { expect } from 'chai';
import { findings } from '../../support/findings.js';

const api = (filter: string, parameters = ''): string => `${filter}
resource Author {
  properties { id: int { identifier: true }, name: string, born: datetime, alive: bool, books: Book[], tags: string[] }
}
resource Book {
  properties { id: int { identifier: true }, title: string, author: Author, price: number }
}
resource Review {
  properties { id: int { identifier: true }, book: Book, stars: int }
  operations { GetCollection { filters: ["f"]${parameters} } }
}
`;

describe('checker: filter paths through relations', () => {
  it('accepts one and two relations for every kind that applies to the last property', () => {
    for (const filter of [
      'filter f: search { properties: { "book.title": "ipartial", "book.author.name": "exact", "book.author": "exact" } }',
      'filter f: range { properties: ["book.price", "book.author.born"] }',
      'filter f: date { properties: ["book.author.born"] }',
      'filter f: exists { properties: ["book.author.name", "book.author"] }',
      'filter f: boolean { properties: ["book.author.alive"] }',
    ])
      expect(findings(api(filter)), filter).to.deep.equal([]);
  });

  it('names an unknown part with the closest property, the whole path as the suggestion', () => {
    const found = findings(api('filter f: search { properties: { "book.author.nmae": "exact" } }'));
    expect(found).to.have.length(1);
    expect(found[0]).to.include({ code: 'unknown-property', severity: 'error', suggestion: 'book.author.name' });
    expect(found[0].at).to.equal('"book.author.nmae"');
    expect(found[0].message).to.equal(
      "filter 'f' names 'book.author.nmae': 'nmae' is not a property of 'Author' (reached by 'book.author'); did you mean 'book.author.name'?",
    );
  });

  it('refuses a path through a to-many relation, a plain property, or more than two relations, saying why', () => {
    const cases: [string, string][] = [
      [
        'book.author.books.title',
        "'book.author.books.title' goes through 3 relations; a filter path goes through at most 2 (book.author.name)",
      ],
      [
        'book.title.length',
        "'title' of 'Book' (reached by 'book') is string, not a relation: only the last part of a filter path may be a plain property",
      ],
    ];
    for (const [path, reason] of cases) {
      const found = findings(api(`filter f: search { properties: { "${path}": "exact" } }`));
      expect(found, path).to.have.length(1);
      expect(found[0], path).to.include({ code: 'filter-path', severity: 'error' });
      expect(found[0].message, path).to.equal(`filter 'f' names '${path}': ${reason}`);
    }
    const toMany = findings(`filter f: search { properties: { "books.title": "exact" } }
resource Book { properties { id: int { identifier: true }, title: string } }
resource Author {
  properties { id: int { identifier: true }, books: Book[] }
  operations { GetCollection { filters: ["f"] } }
}
`);
    expect(toMany.map((f) => f.message)).to.deep.equal([
      "filter 'f' names 'books.title': 'books' of 'Author' is a to-many relation (Book[]): a filter path goes through to-one relations only",
    ]);
  });

  it("checks the last property's type against the kind, as for the resource's own properties", () => {
    const found = findings(api('filter f: range { properties: ["book.author.name"] }'));
    expect(found.map((f) => f.code)).to.deep.equal(['filter-property-type']);
    expect(found[0].message).to.include("but 'name' of 'Author' is string");
  });

  it('refuses an order filter on a related property (the stores sort by the item’s own fields)', () => {
    const found = findings(api('filter f: order { properties: ["book.title"] }'));
    expect(found).to.have.length(1);
    expect(found[0]).to.include({ code: 'filter-path', at: '"book.title"' });
    expect(found[0].message).to.equal(
      "filter 'f' names 'book.title': an order filter sorts by the properties of 'Review' only, not by a related item's ('book.title')",
    );
  });

  it('refuses a match filter on a related property (full text is the search index’s, related items are read from the store)', () => {
    const found = findings(`filter m: match { properties: ["author.name"] }
resource Author { properties { id: int { identifier: true }, name: string } }
resource Book {
  elasticsearch: true
  properties { id: int { identifier: true }, title: string, author: Author }
  operations { GetCollection { filters: ["m"] } }
}
`);
    expect(found.filter((f) => f.code === 'filter-path').map((f) => f.message)).to.deep.equal([
      "filter 'm' names 'author.name': a match filter searches the indexed text of 'Book' only, not a related item's ('author.name')",
    ]);
  });

  it('follows a named parameter’s property path the same way', () => {
    const ok = api(
      'filter f: search { properties: ["book.author.name"] }',
      ', parameters: { writer: { filter: "f", property: "book.author.name" } }',
    );
    expect(findings(ok)).to.deep.equal([]);
    const bad = api(
      'filter f: search { properties: ["book.author.name"] }',
      ', parameters: { writer: { filter: "f", property: "book.autor.name" } }',
    );
    const found = findings(bad);
    expect(found.map((f) => [f.code, f.suggestion])).to.deep.equal([['unknown-property', 'book.author.name']]);
  });
});
