/**
 * Serialization groups over real HTTP, on the embedded store (rendered collection members) and in
 * memory: responses show only the properties of the operation's normalization groups (JSON-LD and
 * JSON, items and collections), request bodies set only those of its denormalization groups, and the
 * OpenAPI and Hydra documentation describe exactly the served shapes.
 */
import { expect } from 'chai';
import { fixture, get, request, tempDir, useServer } from './harness.js';
import { ResponseChecker, responsePointer } from '../openapi/validators.js';

const MERGE_PATCH = { 'Content-Type': 'application/merge-patch+json' };
const JSON_ACCEPT = { Accept: 'application/json' };

for (const storage of [['--memory'], ['--data', 'DIR']]) {
  describe(`HTTP serialization groups (${storage[0]})`, () => {
    const server = useServer(fixture('groups.api'), () => storage.map((a) => (a === 'DIR' ? tempDir() : a)));
    before(async () => {
      const created = await request(server.url, 'POST', '/books', {
        body: { title: 'Dune', isbn: '978-0441013593', internalNote: 'secret', price: 9 },
      });
      expect(created.status, created.text).to.equal(201);
    });

    it('POST shows the read group only and ignores properties outside the write group', async () => {
      const r = await request(server.url, 'POST', '/books', {
        body: { title: 'Emma', isbn: 'x', internalNote: 'n', price: 3 },
      });
      expect(r.status, r.text).to.equal(201);
      // price is readable but not writable; isbn writable but not readable; internalNote in no group.
      expect(r.json).to.deep.equal({ '@context': '/contexts/Book', '@id': '/books/2', '@type': 'Book', title: 'Emma' });
    });

    it('an operation with the "*" group shows every stored property: the ignored ones were never written', async () => {
      const r = await get(server.url, '/books/1/all');
      expect(r.status, r.text).to.equal(200);
      expect(r.json).to.include({ id: 1, title: 'Dune', isbn: '978-0441013593' });
      expect(r.json).to.not.have.property('internalNote');
      expect(r.json).to.not.have.property('price');
    });

    it('PATCH with its own write group sets price and ignores title', async () => {
      const r = await request(server.url, 'PATCH', '/books/1', {
        headers: MERGE_PATCH,
        body: { price: 12, title: 'Changed' },
      });
      expect(r.status, r.text).to.equal(200);
      expect(r.json).to.deep.equal({
        '@context': '/contexts/Book',
        '@id': '/books/1',
        '@type': 'Book',
        title: 'Dune',
        price: 12,
      });
    });

    it('GET item in JSON-LD and JSON: the read group, @id and @type always', async () => {
      const ld = await get(server.url, '/books/1');
      expect(ld.json).to.deep.equal({
        '@context': '/contexts/Book',
        '@id': '/books/1',
        '@type': 'Book',
        title: 'Dune',
        price: 12,
      });
      const plain = await get(server.url, '/books/1', JSON_ACCEPT);
      expect(plain.json).to.deep.equal({ title: 'Dune', price: 12 });
    });

    it('collection members in JSON-LD and JSON hold the read group only (no stored rendering leaks hidden properties)', async () => {
      for (let i = 0; i < 2; i++) {
        const ld = await get(server.url, '/books');
        expect(ld.json.member).to.deep.equal([
          { '@id': '/books/1', '@type': 'Book', title: 'Dune', price: 12 },
          { '@id': '/books/2', '@type': 'Book', title: 'Emma' },
        ]);
        const plain = await get(server.url, '/books', JSON_ACCEPT);
        expect(plain.json).to.deep.equal([{ title: 'Dune', price: 12 }, { title: 'Emma' }]);
      }
    });

    it('OpenAPI: per-group schemas named after the groups, matching the served documents key for key', async () => {
      const doc = (await get(server.url, '/docs.json')).json;
      const schemas = doc.components.schemas;
      expect(Object.keys(schemas)).to.include.members([
        'Book-book_read',
        'Book.jsonld-book_read',
        'Book-_',
        'Book.input-book_write',
        'Book.jsonMergePatch-price',
      ]);
      expect(Object.keys(schemas['Book-book_read'].properties)).to.have.members(['title', 'price']);
      expect(Object.keys(schemas['Book-_'].properties)).to.have.members([
        'id',
        'title',
        'isbn',
        'internalNote',
        'price',
      ]);
      expect(Object.keys(schemas['Book.input-book_write'].properties)).to.have.members(['title', 'isbn']);
      expect(Object.keys(schemas['Book.jsonMergePatch-price'].properties)).to.have.members(['price']);
      const checker = new ResponseChecker(doc);
      const item = (await get(server.url, '/books/1')).json;
      expect(checker.check(responsePointer('/books/{id}', 'get', 200, 'application/ld+json'), item)).to.equal(
        undefined,
      );
      const shown = Object.keys(item).filter((k) => !k.startsWith('@'));
      expect(Object.keys(schemas['Book-book_read'].properties)).to.include.members(shown);
    });

    it('Hydra: readable when some operation shows the property, writeable when some operation accepts it', async () => {
      const doc = (await get(server.url, '/docs.jsonld')).json;
      const book = doc.supportedClass.find((c: { '@id': string }) => c['@id'] === '#Book');
      const prop = (name: string) => book.supportedProperty.find((p: { title: string }) => p.title === name);
      expect(prop('internalNote')).to.include({ readable: true, writeable: false }); // only the "*" Get shows it
      expect(prop('isbn')).to.include({ readable: true, writeable: true }); // shown by the "*" Get
      expect(prop('price')).to.include({ readable: true, writeable: true }); // written by Patch
    });
  });
}
