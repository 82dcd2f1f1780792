/**
 * IRIs relative to the request's path (urlGenerationStrategy 2): written as Symfony's UrlGenerator writes
 * REL_PATH, and read back by resolving them as RFC 3986 does, so that what is written names the same path.
 */
import { expect } from 'chai';
import { iriPath, relativePath } from '../../server/protocol/iri.js';

describe('relative IRIs (REL_PATH)', () => {
  const cases: [string, string, string][] = [
    ['/books', '/books/1', 'books/1'],
    ['/books/1', '/authors/2', '../authors/2'],
    ['/books/1', '/books/2', '2'],
    ['/books/1', '/books/1', '1'],
    ['/books', '/books?page=2', 'books?page=2'],
    ['/books/1.jsonld', '/contexts/Book', '../contexts/Book'],
    ['/a/b/c', '/a/x', '../x'],
    ['/books/1', '/', '../'],
    ['/books', '/', './'],
    ['/books', '/a:b', './a:b'],
    ['/geo/places/1', '/geo/places', '../places'],
  ];

  it('writes the path relative to the request path', () => {
    for (const [base, target, expected] of cases)
      expect(relativePath(base, target), `${base} → ${target}`).to.equal(expected);
  });

  it('reads each back to the path it was written for', () => {
    for (const [base, target] of cases)
      expect(iriPath(relativePath(base, target), base), `${base} → ${target}`).to.equal(target);
  });

  it('reads absolute paths and URLs as before, and relative references only against a base', () => {
    expect(iriPath('http://example.com/books/1', '/authors/1')).to.equal('/books/1');
    expect(iriPath('/books/1', '/authors/1')).to.equal('/books/1');
    expect(iriPath('books/1')).to.equal('books/1');
  });
});
