/**
 * Collections from custom providers (docs/behaviour.md): a plain
 * array is not paginated; a paginator object gets the full or partial document; the package's
 * `ArrayPaginator` (`import { ArrayPaginator } from 'apidsl'` in the fixture's module) too.
 */
import { expect } from 'chai';
import { useServer } from './harness.js';
import { getDoc, memberIds, pfixture, range, withoutSearch } from './pagination-helpers.js';

const VIEW = 'PartialCollectionView';
const gadget = (id: number): Record<string, unknown> => ({
  '@id': `/gadgets/${id}`,
  '@type': 'Gadget',
  id,
  name: `Gadget ${id}`,
});

describe('HTTP pagination: custom providers (providers.api)', () => {
  const server = useServer(pfixture('providers.api'));

  it('a plain array: not paginated, no view, totalItems = its length', async () => {
    const doc = await getDoc(server.url, '/gadgets/array');
    expect(withoutSearch(doc)).to.deep.equal({
      '@context': '/contexts/Gadget',
      '@id': '/gadgets/array',
      '@type': 'Collection',
      totalItems: 7,
      member: range(1, 7).map(gadget),
    });
  });

  it('a plain array with ?page=2: still the whole array, no view (the page parameter is not a filter)', async () => {
    const doc = await getDoc(server.url, '/gadgets/array?page=2');
    expect(memberIds(doc)).to.deep.equal(range(1, 7));
    expect(doc).to.not.have.property('view');
  });

  it('{ items, currentPage: 2, itemsPerPage: 3, totalItems: 10 }: the full document with first/last/previous/next', async () => {
    const doc = await getDoc(server.url, '/gadgets/full');
    expect(withoutSearch(doc)).to.deep.equal({
      '@context': '/contexts/Gadget',
      '@id': '/gadgets/full',
      '@type': 'Collection',
      totalItems: 10,
      member: [4, 5, 6].map(gadget),
      view: {
        '@id': '/gadgets/full?page=2',
        '@type': VIEW,
        first: '/gadgets/full?page=1',
        last: '/gadgets/full?page=4',
        previous: '/gadgets/full?page=1',
        next: '/gadgets/full?page=3',
      },
    });
  });

  it('a full paginator object: other query parameters are kept in its links', async () => {
    const doc = await getDoc(server.url, '/gadgets/full?b=2&a=1');
    expect(doc.view.next).to.equal('/gadgets/full?a=1&b=2&page=3');
  });

  it('{ items, currentPage: 2, itemsPerPage: 3, hasNext: false }: partial, no totalItems, previous only', async () => {
    const doc = await getDoc(server.url, '/gadgets/partial');
    expect(withoutSearch(doc)).to.deep.equal({
      '@context': '/contexts/Gadget',
      '@id': '/gadgets/partial',
      '@type': 'Collection',
      member: [4, 5, 6].map(gadget),
      view: { '@id': '/gadgets/partial?page=2', '@type': VIEW, previous: '/gadgets/partial?page=1' },
    });
  });

  it('{ …, hasNext: true }: partial with next', async () => {
    const doc = await getDoc(server.url, '/gadgets/partial-next');
    expect(doc).to.not.have.property('totalItems');
    expect(doc.view).to.deep.equal({
      '@id': '/gadgets/partial-next?page=2',
      '@type': VIEW,
      previous: '/gadgets/partial-next?page=1',
      next: '/gadgets/partial-next?page=3',
    });
  });

  it("ArrayPaginator imported from 'apidsl': page 1 of 10, the full view", async () => {
    const doc = await getDoc(server.url, '/gadgets/array-paginator');
    expect(withoutSearch(doc)).to.deep.equal({
      '@context': '/contexts/Gadget',
      '@id': '/gadgets/array-paginator',
      '@type': 'Collection',
      totalItems: 10,
      member: [1, 2, 3].map(gadget),
      view: {
        '@id': '/gadgets/array-paginator?page=1',
        '@type': VIEW,
        first: '/gadgets/array-paginator?page=1',
        last: '/gadgets/array-paginator?page=4',
        next: '/gadgets/array-paginator?page=2',
      },
    });
  });

  it('ArrayPaginator, last page (?page=4): item 10, previous, no next', async () => {
    const doc = await getDoc(server.url, '/gadgets/array-paginator?page=4');
    expect(memberIds(doc)).to.deep.equal([10]);
    expect(doc.totalItems).to.equal(10);
    expect(doc.view).to.deep.equal({
      '@id': '/gadgets/array-paginator?page=4',
      '@type': VIEW,
      first: '/gadgets/array-paginator?page=1',
      last: '/gadgets/array-paginator?page=4',
      previous: '/gadgets/array-paginator?page=3',
    });
  });

  it('Accept: application/json: the paginator page as a bare array', async () => {
    const doc = await getDoc(server.url, '/gadgets/full', { Accept: 'application/json' });
    expect(doc).to.deep.equal([4, 5, 6].map((id) => ({ id, name: `Gadget ${id}` })));
  });
});
