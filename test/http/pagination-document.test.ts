/**
 * The Hydra collection document of `member`,
 * `totalItems`, `view` and its links (30 dummies, 3 per page, every client switch on), in both the
 * unprefixed and the `hydra:`-prefixed forms, and the bare array of `application/json`. Range and
 * order filters on their own on this page-paginated collection.
 */
import { expect } from 'chai';
import { JSON_UTF8, JSONLD, request, useServer } from './harness.js';
import { dummy, getDoc, memberIds, named, pfixture, range, seed, withoutSearch } from './pagination-helpers.js';

const VIEW = 'PartialCollectionView';

/** The whole page-paginated document of /dummies for these member ids and this view. */
const dummiesDoc = (
  ids: number[],
  view: Record<string, unknown> | undefined,
  totalItems: number | null = 30,
): Record<string, unknown> => {
  const doc: Record<string, unknown> = { '@context': '/contexts/Dummy', '@id': '/dummies', '@type': 'Collection' };
  if (totalItems !== null) doc.totalItems = totalItems; // null: none (partial pagination)
  doc.member = ids.map((id) => dummy(id));
  if (view) doc.view = view;
  return doc;
};

describe('HTTP pagination: the collection document (30 dummies, 3 per page, client switches on)', () => {
  const server = useServer(pfixture('dummies-switches-on.api'));
  before(async () => {
    await seed(server.url, '/dummies', named(30, 'Dummy #'));
    await seed(server.url, '/pairs', named(2, 'Pair '));
    await seed(server.url, '/prefixed_dummies', named(4, 'Prefixed #'));
  });

  describe('the documented table', () => {
    it('GET /dummies: the whole document, page 1 with first, last and next, no previous', async () => {
      const r = await request(server.url, 'GET', '/dummies');
      expect(r.status).to.equal(200);
      expect(r.headers.get('content-type')).to.equal(JSONLD);
      expect(withoutSearch(r.json)).to.deep.equal(
        dummiesDoc([1, 2, 3], {
          '@id': '/dummies?page=1',
          '@type': VIEW,
          first: '/dummies?page=1',
          last: '/dummies?page=10',
          next: '/dummies?page=2',
        }),
      );
    });

    it('GET /dummies?page=7: previous 6 and next 8; the collection @id has no query', async () => {
      const doc = await getDoc(server.url, '/dummies?page=7');
      expect(withoutSearch(doc)).to.deep.equal(
        dummiesDoc([19, 20, 21], {
          '@id': '/dummies?page=7',
          '@type': VIEW,
          first: '/dummies?page=1',
          last: '/dummies?page=10',
          previous: '/dummies?page=6',
          next: '/dummies?page=8',
        }),
      );
    });

    it('GET /dummies?page=10: the last page, previous 9 and no next', async () => {
      const doc = await getDoc(server.url, '/dummies?page=10');
      expect(withoutSearch(doc)).to.deep.equal(
        dummiesDoc([28, 29, 30], {
          '@id': '/dummies?page=10',
          '@type': VIEW,
          first: '/dummies?page=1',
          last: '/dummies?page=10',
          previous: '/dummies?page=9',
        }),
      );
    });

    it('GET /dummies?page=3: exactly the view of the table', async () => {
      const doc = await getDoc(server.url, '/dummies?page=3');
      expect(doc.view).to.deep.equal({
        '@id': '/dummies?page=3',
        '@type': VIEW,
        first: '/dummies?page=1',
        last: '/dummies?page=10',
        previous: '/dummies?page=2',
        next: '/dummies?page=4',
      });
      expect(memberIds(doc)).to.deep.equal([7, 8, 9]);
    });

    it('GET /dummies?page=2&itemsPerPage=10: links keep itemsPerPage, before the page parameter', async () => {
      const doc = await getDoc(server.url, '/dummies?page=2&itemsPerPage=10');
      expect(withoutSearch(doc)).to.deep.equal(
        dummiesDoc(range(11, 20), {
          '@id': '/dummies?itemsPerPage=10&page=2',
          '@type': VIEW,
          first: '/dummies?itemsPerPage=10&page=1',
          last: '/dummies?itemsPerPage=10&page=3',
          previous: '/dummies?itemsPerPage=10&page=1',
          next: '/dummies?itemsPerPage=10&page=3',
        }),
      );
    });

    it('GET /dummies?page=7&partial=1: previous and next only, no first/last, no totalItems', async () => {
      const doc = await getDoc(server.url, '/dummies?page=7&partial=1');
      expect(withoutSearch(doc)).to.deep.equal(
        dummiesDoc(
          [19, 20, 21],
          {
            '@id': '/dummies?partial=1&page=7',
            '@type': VIEW,
            previous: '/dummies?partial=1&page=6',
            next: '/dummies?partial=1&page=8',
          },
          null,
        ),
      );
    });

    it('GET /dummies?id=8 (one result): a view with only @id and @type', async () => {
      const doc = await getDoc(server.url, '/dummies?id=8');
      expect(withoutSearch(doc)).to.deep.equal(dummiesDoc([8], { '@id': '/dummies?id=8', '@type': VIEW }, 1));
    });

    it('GET /dummies?name=Dummy%20%238: the @id keeps the %20%23 encoding', async () => {
      const doc = await getDoc(server.url, '/dummies?name=Dummy%20%238');
      expect(withoutSearch(doc)).to.deep.equal(
        dummiesDoc([8], { '@id': '/dummies?name=Dummy%20%238', '@type': VIEW }, 1),
      );
    });

    it('GET /dummies?id=%2fdummies%2f8: the @id is re-encoded with upper-case hex', async () => {
      const doc = await getDoc(server.url, '/dummies?id=%2fdummies%2f8');
      // Only the link is asserted: whether an IRI value of an int identifier filter matches item 8 is
      // not part of pagination (API Platform resolves the IRI; our documentation says nothing).
      expect(doc.view['@id']).to.equal('/dummies?id=%2Fdummies%2F8');
      expect(doc.view['@type']).to.equal(VIEW);
    });

    it('an empty collection with no query: no view, totalItems 0, member []', async () => {
      const r = await request(server.url, 'GET', '/nothings');
      expect(r.status).to.equal(200);
      expect(withoutSearch(r.json)).to.deep.equal({
        '@context': '/contexts/Nothing',
        '@id': '/nothings',
        '@type': 'Collection',
        totalItems: 0,
        member: [],
      });
    });

    it('an empty collection with a filter: a view with only @id and @type', async () => {
      const doc = await getDoc(server.url, '/nothings?name=x');
      expect(withoutSearch(doc)).to.deep.equal({
        '@context': '/contexts/Nothing',
        '@id': '/nothings',
        '@type': 'Collection',
        totalItems: 0,
        member: [],
        view: { '@id': '/nothings?name=x', '@type': VIEW },
      });
    });

    it('GET /dummies?pagination=0: all 30, totalItems 30, no view', async () => {
      const doc = await getDoc(server.url, '/dummies?pagination=0');
      expect(withoutSearch(doc)).to.deep.equal(dummiesDoc(range(1, 30), undefined));
    });

    it('GET /dummies?itemsPerPage=0: member [], totalItems 30, a view with @id and @type only', async () => {
      const doc = await getDoc(server.url, '/dummies?itemsPerPage=0');
      expect(withoutSearch(doc)).to.deep.equal(dummiesDoc([], { '@id': '/dummies?itemsPerPage=0', '@type': VIEW }));
    });
  });

  describe('consequences of the documented table', () => {
    it('a page past the end: 200, member [], first, last, previous of the last page, no next', async () => {
      const doc = await getDoc(server.url, '/dummies?page=11');
      expect(withoutSearch(doc)).to.deep.equal(
        dummiesDoc([], {
          '@id': '/dummies?page=11',
          '@type': VIEW,
          first: '/dummies?page=1',
          last: '/dummies?page=10',
          previous: '/dummies?page=10',
        }),
      );
    });

    it('far past the end (?page=500): previous is page 499, as API Platform computes it', async () => {
      const doc = await getDoc(server.url, '/dummies?page=500');
      expect(doc.member).to.deep.equal([]);
      expect(doc.view).to.deep.equal({
        '@id': '/dummies?page=500',
        '@type': VIEW,
        first: '/dummies?page=1',
        last: '/dummies?page=10',
        previous: '/dummies?page=499',
      });
    });

    it('a collection that fits in one page: no view', async () => {
      const doc = await getDoc(server.url, '/pairs');
      expect(withoutSearch(doc)).to.deep.equal({
        '@context': '/contexts/Pair',
        '@id': '/pairs',
        '@type': 'Collection',
        totalItems: 2,
        member: [
          { '@id': '/pairs/1', '@type': 'Pair', id: 1, name: 'Pair 1' },
          { '@id': '/pairs/2', '@type': 'Pair', id: 2, name: 'Pair 2' },
        ],
      });
    });

    it('?page=2 on a one-page collection: 200, member [], totalItems 2 and no view', async () => {
      const doc = await getDoc(server.url, '/pairs?page=2');
      expect(withoutSearch(doc)).to.deep.equal({
        '@context': '/contexts/Pair',
        '@id': '/pairs',
        '@type': 'Collection',
        totalItems: 2,
        member: [],
      });
    });

    it('a filtered single page: a view with only @id and @type', async () => {
      const doc = await getDoc(server.url, '/pairs?name=Pair%201');
      expect(doc.totalItems).to.equal(1);
      expect(memberIds(doc)).to.deep.equal([1]);
      expect(doc.view).to.deep.equal({ '@id': '/pairs?name=Pair%201', '@type': VIEW });
    });

    it('a filtered single page with ?page=1: the view @id drops the page parameter', async () => {
      const doc = await getDoc(server.url, '/pairs?page=1&name=Pair%201');
      expect(doc.view).to.deep.equal({ '@id': '/pairs?name=Pair%201', '@type': VIEW });
    });

    it('pagination disabled by the client with a filter: all matches, a view with @id (keeping pagination) and @type', async () => {
      const doc = await getDoc(server.url, '/dummies?pagination=false&id[lte]=5');
      expect(withoutSearch(doc)).to.deep.equal(
        dummiesDoc(range(1, 5), { '@id': '/dummies?id%5Blte%5D=5&pagination=false', '@type': VIEW }, 5),
      );
    });

    it('a filter spanning several pages: page links keep the filter', async () => {
      const doc = await getDoc(server.url, '/dummies?id[gt]=20');
      expect(doc.totalItems).to.equal(10);
      expect(memberIds(doc)).to.deep.equal([21, 22, 23]);
      expect(doc.view).to.deep.equal({
        '@id': '/dummies?id%5Bgt%5D=20&page=1',
        '@type': VIEW,
        first: '/dummies?id%5Bgt%5D=20&page=1',
        last: '/dummies?id%5Bgt%5D=20&page=4',
        next: '/dummies?id%5Bgt%5D=20&page=2',
      });
    });
  });

  describe('link building', () => {
    const viewId = async (query: string): Promise<string> =>
      (await getDoc(server.url, `/dummies?${query}`)).view['@id'];

    it('other parameters are sorted by key and the page parameter goes last', async () => {
      expect(await viewId('zeta=1&alpha=2&page=2')).to.equal('/dummies?alpha=2&zeta=1&page=2');
      expect(await viewId('page=2&b=1&a=2')).to.equal('/dummies?a=2&b=1&page=2');
    });

    it('title/author example: ?title=x&author=y&page=2 gives author, title, page', async () => {
      expect(await viewId('title=x&author=y&page=2')).to.equal('/dummies?author=y&title=x&page=2');
    });

    it('all links of a page share the sorted parameters', async () => {
      const doc = await getDoc(server.url, '/dummies?page=2&zeta=1&alpha=2');
      expect(doc.view).to.deep.equal({
        '@id': '/dummies?alpha=2&zeta=1&page=2',
        '@type': VIEW,
        first: '/dummies?alpha=2&zeta=1&page=1',
        last: '/dummies?alpha=2&zeta=1&page=10',
        previous: '/dummies?alpha=2&zeta=1&page=1',
        next: '/dummies?alpha=2&zeta=1&page=3',
      });
    });

    it('a space is %20 (from %20 and from +)', async () => {
      expect(await viewId('q=a%20b')).to.equal('/dummies?q=a%20b&page=1');
      expect(await viewId('q=a+b')).to.equal('/dummies?q=a%20b&page=1');
    });

    it('brackets are %5B/%5D and a slash is %2F (upper-case hex)', async () => {
      expect(await viewId('order[id]=asc')).to.equal('/dummies?order%5Bid%5D=asc&page=1');
      expect(await viewId('q=a/b')).to.equal('/dummies?q=a%2Fb&page=1');
      expect(await viewId('q=%2fx%2f')).to.equal('/dummies?q=%2Fx%2F&page=1');
    });

    it('numeric leaf indexes collapse to a%5B%5D', async () => {
      expect(await viewId('a[0]=x&a[1]=y')).to.equal('/dummies?a%5B%5D=x&a%5B%5D=y&page=1');
      expect(await viewId('a[]=x')).to.equal('/dummies?a%5B%5D=x&page=1');
    });

    it('RFC 3986: reserved and non-ASCII characters are percent-encoded, unreserved ones are not', async () => {
      expect(await viewId('q=%26%3D%3F%23')).to.equal('/dummies?q=%26%3D%3F%23&page=1');
      expect(await viewId('q=%C3%A9')).to.equal('/dummies?q=%C3%A9&page=1');
      expect(await viewId('q=a-b_c.d~e')).to.equal('/dummies?q=a-b_c.d~e&page=1');
    });

    it('only top-level keys are sorted: the keys inside order[...] keep their (priority) order', async () => {
      expect(await viewId('order[name]=asc&order[id]=desc')).to.equal(
        '/dummies?order%5Bname%5D=asc&order%5Bid%5D=desc&page=1',
      );
    });

    it('the page parameter holds the page read (PHP int cast): ?page=2abc and ?page=1.9', async () => {
      const two = await getDoc(server.url, '/dummies?page=2abc');
      expect(memberIds(two)).to.deep.equal([4, 5, 6]);
      expect(two.view['@id']).to.equal('/dummies?page=2');
      expect(two.view.previous).to.equal('/dummies?page=1');
      const one = await getDoc(server.url, '/dummies?page=1.9');
      expect(memberIds(one)).to.deep.equal([1, 2, 3]);
      expect(one.view['@id']).to.equal('/dummies?page=1');
    });

    it('links are absolute paths (no scheme or host)', async () => {
      const doc = await getDoc(server.url, '/dummies?page=2');
      for (const link of Object.entries(doc.view)
        .filter(([k]) => k !== '@type')
        .map(([, v]) => v as string)) {
        expect(link.startsWith('/dummies?'), link).to.equal(true);
      }
    });
  });

  describe('range and order filters on a page-paginated collection', () => {
    const cases: [string, number[], number][] = [
      ['id[lt]=4', [1, 2, 3], 3],
      ['id[lte]=4', [1, 2, 3], 4],
      ['id[gt]=27', [28, 29, 30], 3],
      ['id[gte]=27', [27, 28, 29], 4],
      ['id[between]=5..7', [5, 6, 7], 3],
      ['id[between]=5..5', [5], 1],
      ['id[gt]=10&id[lt]=14', [11, 12, 13], 3],
    ];
    for (const [query, ids, total] of cases) {
      it(`?${query}: members ${ids.join(', ')}, totalItems ${total}`, async () => {
        const doc = await getDoc(server.url, `/dummies?${query}`);
        expect(memberIds(doc)).to.deep.equal(ids);
        expect(doc.totalItems).to.equal(total);
      });
    }

    it('?order[id]=desc: 30, 29, 28 with links keeping the order', async () => {
      const doc = await getDoc(server.url, '/dummies?order[id]=desc');
      expect(memberIds(doc)).to.deep.equal([30, 29, 28]);
      expect(doc.view).to.deep.equal({
        '@id': '/dummies?order%5Bid%5D=desc&page=1',
        '@type': VIEW,
        first: '/dummies?order%5Bid%5D=desc&page=1',
        last: '/dummies?order%5Bid%5D=desc&page=10',
        next: '/dummies?order%5Bid%5D=desc&page=2',
      });
      expect(memberIds(await getDoc(server.url, '/dummies?order[id]=desc&page=10'))).to.deep.equal([3, 2, 1]);
    });

    it('?order[id]=DESC (case-insensitive direction)', async () => {
      expect(memberIds(await getDoc(server.url, '/dummies?order[id]=DESC'))).to.deep.equal([30, 29, 28]);
    });

    it('?order[name]=asc: string order (Dummy #1, #10, #11)', async () => {
      expect(memberIds(await getDoc(server.url, '/dummies?order[name]=asc'))).to.deep.equal([1, 10, 11]);
      expect(memberIds(await getDoc(server.url, '/dummies?order[name]=desc'))).to.deep.equal([9, 8, 7]);
    });

    it('range and order together, over several pages', async () => {
      const doc = await getDoc(server.url, '/dummies?id[gte]=10&order[id]=desc&page=2');
      expect(memberIds(doc)).to.deep.equal([27, 26, 25]);
      expect(doc.totalItems).to.equal(21);
      expect(doc.view.last).to.equal('/dummies?id%5Bgte%5D=10&order%5Bid%5D=desc&page=7');
    });
  });

  describe('formats and prefix', () => {
    it('Accept: application/json gives a bare array of the page', async () => {
      const r = await request(server.url, 'GET', '/dummies?page=2', { headers: { Accept: 'application/json' } });
      expect(r.status).to.equal(200);
      expect(r.headers.get('content-type')).to.equal(JSON_UTF8);
      expect(r.json).to.deep.equal([
        { id: 4, name: 'Dummy #4' },
        { id: 5, name: 'Dummy #5' },
        { id: 6, name: 'Dummy #6' },
      ]);
    });

    it('Accept: application/json with ?pagination=false: every item in a bare array', async () => {
      const r = await request(server.url, 'GET', '/dummies?pagination=false', {
        headers: { Accept: 'application/json' },
      });
      expect(r.status).to.equal(200);
      expect(r.json).to.deep.equal(range(1, 30).map((id) => ({ id, name: `Dummy #${id}` })));
    });

    it('normalizationContext { hydra_prefix: true } on the operation: hydra:-prefixed keys and types', async () => {
      const doc = await getDoc(server.url, '/prefixed_dummies?page=2');
      expect(withoutSearch(doc)).to.deep.equal({
        '@context': '/contexts/PrefixedDummy',
        '@id': '/prefixed_dummies',
        '@type': 'hydra:Collection',
        'hydra:totalItems': 4,
        'hydra:member': [dummy(4, '/prefixed_dummies', 'PrefixedDummy', 'Prefixed #')],
        'hydra:view': {
          '@id': '/prefixed_dummies?page=2',
          '@type': 'hydra:PartialCollectionView',
          'hydra:first': '/prefixed_dummies?page=1',
          'hydra:last': '/prefixed_dummies?page=2',
          'hydra:previous': '/prefixed_dummies?page=1',
        },
      });
    });

    it('the other operations of the same file stay unprefixed', async () => {
      const doc = await getDoc(server.url, '/dummies');
      expect(Object.keys(doc).filter((k) => k.startsWith('hydra:'))).to.deep.equal([]);
      expect(doc['@type']).to.equal('Collection');
    });
  });
});

describe('HTTP pagination: the global hydra_prefix: true', () => {
  const server = useServer(pfixture('hydra-prefix.api'));
  before(async () => {
    await seed(server.url, '/dummies', named(30, 'Dummy #'));
    await seed(server.url, '/plain_dummies', named(4, 'Plain #'));
  });

  it('GET /dummies?page=3: exactly the prefixed view API Platform gives', async () => {
    const doc = await getDoc(server.url, '/dummies?page=3');
    expect(withoutSearch(doc)).to.deep.equal({
      '@context': '/contexts/Dummy',
      '@id': '/dummies',
      '@type': 'hydra:Collection',
      'hydra:totalItems': 30,
      'hydra:member': [7, 8, 9].map((id) => dummy(id)),
      'hydra:view': {
        '@id': '/dummies?page=3',
        '@type': 'hydra:PartialCollectionView',
        'hydra:first': '/dummies?page=1',
        'hydra:last': '/dummies?page=10',
        'hydra:previous': '/dummies?page=2',
        'hydra:next': '/dummies?page=4',
      },
    });
  });

  it('partial pagination, prefixed: hydra:previous and hydra:next only, no hydra:totalItems', async () => {
    const doc = await getDoc(server.url, '/dummies?page=7&partial=1');
    expect(doc).to.not.have.property('hydra:totalItems');
    expect(doc).to.not.have.property('totalItems');
    expect(doc['hydra:view']).to.deep.equal({
      '@id': '/dummies?partial=1&page=7',
      '@type': 'hydra:PartialCollectionView',
      'hydra:previous': '/dummies?partial=1&page=6',
      'hydra:next': '/dummies?partial=1&page=8',
    });
  });

  it('a filtered single page, prefixed: hydra:view with @id and @type', async () => {
    const doc = await getDoc(server.url, '/dummies?page=2&unknown=1&itemsPerPage=50');
    // the client page size is off here: itemsPerPage is an ordinary parameter, 3 per page
    expect(doc['hydra:view']['@id']).to.equal('/dummies?itemsPerPage=50&unknown=1&page=2');
    expect(doc['hydra:view']['@type']).to.equal('hydra:PartialCollectionView');
  });

  it('an operation with normalizationContext { hydra_prefix: false } stays unprefixed', async () => {
    const doc = await getDoc(server.url, '/plain_dummies');
    expect(withoutSearch(doc)).to.deep.equal({
      '@context': '/contexts/PlainDummy',
      '@id': '/plain_dummies',
      '@type': 'Collection',
      totalItems: 4,
      member: [1, 2, 3].map((id) => dummy(id, '/plain_dummies', 'PlainDummy', 'Plain #')),
      view: {
        '@id': '/plain_dummies?page=1',
        '@type': VIEW,
        first: '/plain_dummies?page=1',
        last: '/plain_dummies?page=2',
        next: '/plain_dummies?page=2',
      },
    });
  });

  it('Accept: application/json is still a bare array', async () => {
    const r = await request(server.url, 'GET', '/dummies', { headers: { Accept: 'application/json' } });
    expect(r.json).to.deep.equal([1, 2, 3].map((id) => ({ id, name: `Dummy #${id}` })));
  });
});
