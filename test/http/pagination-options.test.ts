/**
 * Every pagination option at every level (global `config { defaults }` →
 * resource → operation), renamed client parameters, client parameters ignored when their switch is
 * off, PHP's boolean and integer readings, the maximum page size, and the 400s of
 * API Platform, with their exact `detail`.
 */
import { expect } from 'chai';
import { request, useServer } from './harness.js';
import {
  expectPaginationError,
  getDoc,
  memberIds,
  named,
  pfixture,
  range,
  seed,
  withoutSearch,
} from './pagination-helpers.js';

const VIEW = 'PartialCollectionView';

/** first/last/previous/next of a full page view of `path` with `params` before the page parameter. */
function fullView(
  path: string,
  params: string,
  page: number,
  last: number,
  pageParam = 'page',
): Record<string, unknown> {
  const link = (n: number): string => `${path}?${params ? `${params}&` : ''}${pageParam}=${n}`;
  const view: Record<string, unknown> = { '@id': link(page), '@type': VIEW, first: link(1), last: link(last) };
  if (page > 1) view.previous = link(page - 1);
  if (page < last) view.next = link(page + 1);
  return view;
}

describe('HTTP pagination options: global defaults, resource, operation (levels.api: 4 per page, maximum 6, client switches on)', () => {
  const server = useServer(pfixture('levels.api'));
  const resources = [
    'alphas',
    'ipp_resources',
    'ipp_operations',
    'max_resources',
    'max_operations',
    'partial_resources',
    'partial_operations',
    'client_enabled_resources',
    'client_enabled_operations',
    'client_ipp_resources',
    'client_ipp_operations',
    'client_partial_resources',
    'client_partial_operations',
    'enabled_resources',
    'enabled_operations',
  ];
  before(async () => {
    for (const path of resources) await seed(server.url, `/${path}`, named(10, 'Item '));
  });

  describe('globals only (/alphas)', () => {
    it('pagination_items_per_page: 4 per page, 3 pages', async () => {
      const doc = await getDoc(server.url, '/alphas');
      expect(memberIds(doc)).to.deep.equal([1, 2, 3, 4]);
      expect(doc.totalItems).to.equal(10);
      expect(doc.view).to.deep.equal(fullView('/alphas', '', 1, 3));
    });

    it('pagination_maximum_items_per_page: ?itemsPerPage=10 is clamped to 6; links keep the requested 10', async () => {
      const doc = await getDoc(server.url, '/alphas?itemsPerPage=10');
      expect(memberIds(doc)).to.deep.equal(range(1, 6));
      expect(doc.totalItems).to.equal(10);
      expect(doc.view).to.deep.equal(fullView('/alphas', 'itemsPerPage=10', 1, 2));
      const second = await getDoc(server.url, '/alphas?itemsPerPage=10&page=2');
      expect(memberIds(second)).to.deep.equal(range(7, 10));
    });

    it('?itemsPerPage below the maximum is honoured', async () => {
      const doc = await getDoc(server.url, '/alphas?itemsPerPage=5');
      expect(memberIds(doc)).to.deep.equal(range(1, 5));
      expect(doc.view.last).to.equal('/alphas?itemsPerPage=5&page=2');
    });

    it('pagination_client_enabled: ?pagination=false lists all 10 without a view', async () => {
      const doc = await getDoc(server.url, '/alphas?pagination=false');
      expect(memberIds(doc)).to.deep.equal(range(1, 10));
      expect(doc.totalItems).to.equal(10);
      expect(doc).to.not.have.property('view');
    });

    it('pagination_client_partial: ?partial=true is partial (no totalItems, no first/last)', async () => {
      const doc = await getDoc(server.url, '/alphas?partial=true');
      expect(doc).to.not.have.property('totalItems');
      expect(doc.view).to.deep.equal({
        '@id': '/alphas?partial=true&page=1',
        '@type': VIEW,
        next: '/alphas?partial=true&page=2',
      });
    });
  });

  describe('paginationItemsPerPage', () => {
    it('resource: 2 per page over the global 4', async () => {
      const doc = await getDoc(server.url, '/ipp_resources');
      expect(memberIds(doc)).to.deep.equal([1, 2]);
      expect(doc.view).to.deep.equal(fullView('/ipp_resources', '', 1, 5));
    });
    it('operation: 5 per page over the resource 2', async () => {
      const doc = await getDoc(server.url, '/ipp_operations');
      expect(memberIds(doc)).to.deep.equal(range(1, 5));
      expect(doc.view).to.deep.equal(fullView('/ipp_operations', '', 1, 2));
    });
  });

  describe('paginationMaximumItemsPerPage', () => {
    it('resource: ?itemsPerPage=10 clamped to 8 (over the global 6)', async () => {
      const doc = await getDoc(server.url, '/max_resources?itemsPerPage=10');
      expect(memberIds(doc)).to.deep.equal(range(1, 8));
      expect(doc.view).to.deep.equal(fullView('/max_resources', 'itemsPerPage=10', 1, 2));
    });
    it('operation: ?itemsPerPage=10 clamped to 3 (over the resource 8)', async () => {
      const doc = await getDoc(server.url, '/max_operations?itemsPerPage=10');
      expect(memberIds(doc)).to.deep.equal([1, 2, 3]);
      expect(doc.view).to.deep.equal(fullView('/max_operations', 'itemsPerPage=10', 1, 4));
    });
    it('operation: the default page size (4) is clamped to the maximum (3) too, the client switch being on', async () => {
      const doc = await getDoc(server.url, '/max_operations');
      expect(memberIds(doc)).to.deep.equal([1, 2, 3]);
      expect(doc.view).to.deep.equal(fullView('/max_operations', '', 1, 4));
    });
  });

  describe('paginationPartial', () => {
    it('resource: partial (no totalItems, no first/last)', async () => {
      const doc = await getDoc(server.url, '/partial_resources');
      expect(withoutSearch(doc)).to.not.have.property('totalItems');
      expect(memberIds(doc)).to.deep.equal([1, 2, 3, 4]);
      expect(doc.view).to.deep.equal({
        '@id': '/partial_resources?page=1',
        '@type': VIEW,
        next: '/partial_resources?page=2',
      });
    });
    it('operation: false over the resource true (totalItems, first/last)', async () => {
      const doc = await getDoc(server.url, '/partial_operations');
      expect(doc.totalItems).to.equal(10);
      expect(doc.view).to.deep.equal(fullView('/partial_operations', '', 1, 3));
    });
    it('resource partial, client switch on: ?partial=false turns it off', async () => {
      const doc = await getDoc(server.url, '/partial_resources?partial=false');
      expect(doc.totalItems).to.equal(10);
      expect(doc.view).to.deep.equal(fullView('/partial_resources', 'partial=false', 1, 3));
    });
  });

  describe('paginationClientEnabled', () => {
    it('resource false: ?pagination=false is ignored and kept in the links', async () => {
      const doc = await getDoc(server.url, '/client_enabled_resources?pagination=false');
      expect(memberIds(doc)).to.deep.equal([1, 2, 3, 4]);
      expect(doc.totalItems).to.equal(10);
      expect(doc.view).to.deep.equal(fullView('/client_enabled_resources', 'pagination=false', 1, 3));
    });
    it('operation true over the resource false: ?pagination=false lists all', async () => {
      const doc = await getDoc(server.url, '/client_enabled_operations?pagination=false');
      expect(memberIds(doc)).to.deep.equal(range(1, 10));
      expect(doc).to.not.have.property('view');
    });
  });

  describe('paginationClientItemsPerPage', () => {
    it('resource false: ?itemsPerPage=2 is ignored and kept in the links', async () => {
      const doc = await getDoc(server.url, '/client_ipp_resources?itemsPerPage=2');
      expect(memberIds(doc)).to.deep.equal([1, 2, 3, 4]);
      expect(doc.view).to.deep.equal(fullView('/client_ipp_resources', 'itemsPerPage=2', 1, 3));
    });
    it('resource false: a negative ?itemsPerPage is ignored too (200)', async () => {
      const doc = await getDoc(server.url, '/client_ipp_resources?itemsPerPage=-1');
      expect(memberIds(doc)).to.deep.equal([1, 2, 3, 4]);
    });
    it('operation true over the resource false: ?itemsPerPage=2 gives 2 per page', async () => {
      const doc = await getDoc(server.url, '/client_ipp_operations?itemsPerPage=2');
      expect(memberIds(doc)).to.deep.equal([1, 2]);
      expect(doc.view).to.deep.equal(fullView('/client_ipp_operations', 'itemsPerPage=2', 1, 5));
    });
  });

  describe('paginationClientPartial', () => {
    it('resource false: ?partial=1 is ignored (totalItems, first/last) and kept in the links', async () => {
      const doc = await getDoc(server.url, '/client_partial_resources?partial=1');
      expect(doc.totalItems).to.equal(10);
      expect(doc.view).to.deep.equal(fullView('/client_partial_resources', 'partial=1', 1, 3));
    });
    it('operation true over the resource false: ?partial=1 is partial', async () => {
      const doc = await getDoc(server.url, '/client_partial_operations?partial=1');
      expect(doc).to.not.have.property('totalItems');
      expect(doc.view).to.deep.equal({
        '@id': '/client_partial_operations?partial=1&page=1',
        '@type': VIEW,
        next: '/client_partial_operations?partial=1&page=2',
      });
    });
  });

  describe('paginationEnabled', () => {
    it('resource false: all 10, totalItems 10, no view', async () => {
      const doc = await getDoc(server.url, '/enabled_resources');
      expect(withoutSearch(doc)).to.deep.equal({
        '@context': '/contexts/EnabledResource',
        '@id': '/enabled_resources',
        '@type': 'Collection',
        totalItems: 10,
        member: range(1, 10).map((id) => ({
          '@id': `/enabled_resources/${id}`,
          '@type': 'EnabledResource',
          id,
          name: `Item ${id}`,
        })),
      });
    });
    it('resource false: page parameters are not read, so ?page=0 is no error', async () => {
      const doc = await getDoc(server.url, '/enabled_resources?page=0');
      expect(memberIds(doc)).to.deep.equal(range(1, 10));
      expect(doc).to.not.have.property('view');
    });
    it('resource false, client switch on: ?pagination=1 turns pagination on', async () => {
      const doc = await getDoc(server.url, '/enabled_resources?pagination=1');
      expect(memberIds(doc)).to.deep.equal([1, 2, 3, 4]);
      expect(doc.view).to.deep.equal(fullView('/enabled_resources', 'pagination=1', 1, 3));
    });
    it('operation true over the resource false: paginated', async () => {
      const doc = await getDoc(server.url, '/enabled_operations');
      expect(memberIds(doc)).to.deep.equal([1, 2, 3, 4]);
      expect(doc.view).to.deep.equal(fullView('/enabled_operations', '', 1, 3));
    });
  });
});

describe('HTTP pagination options: globals off and partial (levels-inverted.api: 3 per page, client switches off)', () => {
  const server = useServer(pfixture('levels-inverted.api'));
  before(async () => {
    for (const path of [
      'plains',
      'enabled_resources',
      'enabled_operations',
      'full_resources',
      'full_operations',
      'loose_items',
    ]) {
      await seed(server.url, `/${path}`, named(10, 'Item '));
    }
  });

  it('pagination_enabled: false: all 10, totalItems 10, no view', async () => {
    const doc = await getDoc(server.url, '/plains');
    expect(memberIds(doc)).to.deep.equal(range(1, 10));
    expect(doc.totalItems).to.equal(10);
    expect(doc).to.not.have.property('view');
  });

  it('client switch off: ?pagination=true does not turn it on; the enable parameter alone makes no view', async () => {
    const doc = await getDoc(server.url, '/plains?pagination=true');
    expect(memberIds(doc)).to.deep.equal(range(1, 10));
    expect(doc).to.not.have.property('view');
  });

  it('not paginated with another parameter: a view with @id (all parameters) and @type', async () => {
    const doc = await getDoc(server.url, '/plains?pagination=true&x=1');
    expect(doc.view).to.deep.equal({ '@id': '/plains?pagination=true&x=1', '@type': VIEW });
  });

  it('resource paginationEnabled: true, global partial: 3 per page, no totalItems', async () => {
    const doc = await getDoc(server.url, '/enabled_resources');
    expect(memberIds(doc)).to.deep.equal([1, 2, 3]);
    expect(doc).to.not.have.property('totalItems');
    expect(doc.view).to.deep.equal({
      '@id': '/enabled_resources?page=1',
      '@type': VIEW,
      next: '/enabled_resources?page=2',
    });
  });

  it('operation paginationEnabled: true, global partial', async () => {
    const doc = await getDoc(server.url, '/enabled_operations?page=2');
    expect(memberIds(doc)).to.deep.equal([4, 5, 6]);
    expect(doc).to.not.have.property('totalItems');
    expect(doc.view).to.deep.equal({
      '@id': '/enabled_operations?page=2',
      '@type': VIEW,
      previous: '/enabled_operations?page=1',
      next: '/enabled_operations?page=3',
    });
  });

  it('resource paginationPartial: false over the global true', async () => {
    const doc = await getDoc(server.url, '/full_resources');
    expect(doc.totalItems).to.equal(10);
    expect(doc.view).to.deep.equal(fullView('/full_resources', '', 1, 4));
  });

  it('operation paginationPartial: false over the global true', async () => {
    const doc = await getDoc(server.url, '/full_operations?page=4');
    expect(memberIds(doc)).to.deep.equal([10]);
    expect(doc.totalItems).to.equal(10);
    expect(doc.view).to.deep.equal(fullView('/full_operations', '', 4, 4));
  });

  it('a maximum below the page size does not apply while the client page size is off', async () => {
    const doc = await getDoc(server.url, '/loose_items');
    expect(memberIds(doc)).to.deep.equal([1, 2, 3]);
    expect(doc.view).to.deep.equal(fullView('/loose_items', '', 1, 4));
  });
});

describe('HTTP pagination options: client switches off (dummies-switches-off.api)', () => {
  const server = useServer(pfixture('dummies-switches-off.api'));
  before(async () => {
    await seed(server.url, '/dummies', named(30, 'Dummy #'));
  });

  it('?pagination=false is ignored for paging and kept in the links (@id /dummies?pagination=false&page=1)', async () => {
    const doc = await getDoc(server.url, '/dummies?pagination=false');
    expect(memberIds(doc)).to.deep.equal([1, 2, 3]);
    expect(doc.totalItems).to.equal(30);
    expect(doc.view).to.deep.equal(fullView('/dummies', 'pagination=false', 1, 10));
  });

  it('?itemsPerPage=10 is ignored and kept in the links', async () => {
    const doc = await getDoc(server.url, '/dummies?itemsPerPage=10&page=2');
    expect(memberIds(doc)).to.deep.equal([4, 5, 6]);
    expect(doc.view).to.deep.equal(fullView('/dummies', 'itemsPerPage=10', 2, 10));
  });

  it('?itemsPerPage=-1 and ?itemsPerPage=0&page=2 are ignored (200)', async () => {
    expect(memberIds(await getDoc(server.url, '/dummies?itemsPerPage=-1'))).to.deep.equal([1, 2, 3]);
    expect(memberIds(await getDoc(server.url, '/dummies?itemsPerPage=0&page=2'))).to.deep.equal([4, 5, 6]);
  });

  it('?partial=1 is ignored: totalItems, first and last', async () => {
    const doc = await getDoc(server.url, '/dummies?partial=1');
    expect(doc.totalItems).to.equal(30);
    expect(doc.view).to.deep.equal(fullView('/dummies', 'partial=1', 1, 10));
  });

  it('?page=0 is still a 400', async () => {
    expectPaginationError(
      await request(server.url, 'GET', '/dummies?page=0'),
      'Page should not be less than 1',
      '?page=0',
    );
  });

  it('the three ignored parameters together: all kept in the links, sorted', async () => {
    const doc = await getDoc(server.url, '/dummies?pagination=false&partial=1&itemsPerPage=10&page=10');
    expect(memberIds(doc)).to.deep.equal([28, 29, 30]);
    expect(doc.view).to.deep.equal(fullView('/dummies', 'itemsPerPage=10&pagination=false&partial=1', 10, 10));
  });
});

describe('HTTP pagination options: renamed parameters (renamed.api: _page, _pagination, _itemsPerPage, _partial)', () => {
  const server = useServer(pfixture('renamed.api'));
  before(async () => {
    await seed(server.url, '/dummies', named(30, 'Dummy #'));
  });

  it('?_page=2 paginates and the links use _page', async () => {
    const doc = await getDoc(server.url, '/dummies?_page=2');
    expect(memberIds(doc)).to.deep.equal([4, 5, 6]);
    expect(doc.view).to.deep.equal(fullView('/dummies', '', 2, 10, '_page'));
  });

  it('a plain page is an ordinary parameter, kept in the links before _page', async () => {
    const doc = await getDoc(server.url, '/dummies?page=5');
    expect(memberIds(doc)).to.deep.equal([1, 2, 3]);
    expect(doc.view).to.deep.equal(fullView('/dummies', 'page=5', 1, 10, '_page'));
  });

  it('?page=0 is no error; ?_page=0 is', async () => {
    expect(memberIds(await getDoc(server.url, '/dummies?page=0'))).to.deep.equal([1, 2, 3]);
    expectPaginationError(
      await request(server.url, 'GET', '/dummies?_page=0'),
      'Page should not be less than 1',
      '?_page=0',
    );
  });

  it('?_itemsPerPage=10 sets the page size; ?itemsPerPage=10 does not', async () => {
    const doc = await getDoc(server.url, '/dummies?_itemsPerPage=10&_page=2');
    expect(memberIds(doc)).to.deep.equal(range(11, 20));
    expect(doc.view).to.deep.equal(fullView('/dummies', '_itemsPerPage=10', 2, 3, '_page'));
    const plain = await getDoc(server.url, '/dummies?itemsPerPage=10');
    expect(memberIds(plain)).to.deep.equal([1, 2, 3]);
    expect(plain.view).to.deep.equal(fullView('/dummies', 'itemsPerPage=10', 1, 10, '_page'));
  });

  it('?_pagination=false disables pagination; ?pagination=false does not', async () => {
    const off = await getDoc(server.url, '/dummies?_pagination=false');
    expect(memberIds(off)).to.deep.equal(range(1, 30));
    expect(off).to.not.have.property('view');
    const plain = await getDoc(server.url, '/dummies?pagination=false');
    expect(memberIds(plain)).to.deep.equal([1, 2, 3]);
    expect(plain.view).to.deep.equal(fullView('/dummies', 'pagination=false', 1, 10, '_page'));
  });

  it('?_partial=1 is partial; ?partial=1 is not', async () => {
    const partial = await getDoc(server.url, '/dummies?_partial=1');
    expect(partial).to.not.have.property('totalItems');
    expect(partial.view).to.deep.equal({
      '@id': '/dummies?_partial=1&_page=1',
      '@type': VIEW,
      next: '/dummies?_partial=1&_page=2',
    });
    const plain = await getDoc(server.url, '/dummies?partial=1');
    expect(plain.totalItems).to.equal(30);
  });

  it('sorting puts _-keys by code point among the others and _page last', async () => {
    const doc = await getDoc(server.url, '/dummies?zeta=1&_page=2&alpha=1');
    expect(doc.view['@id']).to.equal('/dummies?alpha=1&zeta=1&_page=2');
  });
});

describe('HTTP pagination options: PHP readings and the 400s (dummies-switches-on.api)', () => {
  const server = useServer(pfixture('dummies-switches-on.api'));
  before(async () => {
    await seed(server.url, '/dummies', named(30, 'Dummy #'));
  });

  describe('?pagination= read with FILTER_VALIDATE_BOOLEAN', () => {
    for (const value of ['1', 'true', 'on', 'yes', 'TRUE', 'Yes', 'ON']) {
      it(`?pagination=${value} means true: paginated`, async () => {
        const doc = await getDoc(server.url, `/dummies?pagination=${value}`);
        expect(memberIds(doc)).to.deep.equal([1, 2, 3]);
        expect(doc.view['@id']).to.equal(`/dummies?pagination=${value}&page=1`);
      });
    }
    for (const value of ['0', 'false', 'off', 'no', '', 'abc', '2', 'y']) {
      it(`?pagination=${value} means false: all 30, no view`, async () => {
        const doc = await getDoc(server.url, `/dummies?pagination=${value}`);
        expect(memberIds(doc)).to.deep.equal(range(1, 30));
        expect(doc.totalItems).to.equal(30);
        expect(doc).to.not.have.property('view');
      });
    }
  });

  describe('?partial= read with FILTER_VALIDATE_BOOLEAN', () => {
    for (const value of ['1', 'true', 'on', 'yes']) {
      it(`?partial=${value}: partial`, async () => {
        const doc = await getDoc(server.url, `/dummies?partial=${value}`);
        expect(doc).to.not.have.property('totalItems');
        expect(doc.view).to.not.have.property('first');
        expect(doc.view).to.not.have.property('last');
      });
    }
    for (const value of ['0', 'abc', '']) {
      it(`?partial=${value}: full`, async () => {
        const doc = await getDoc(server.url, `/dummies?partial=${value}`);
        expect(doc.totalItems).to.equal(30);
        expect(doc.view.last).to.equal(`/dummies?partial=${value}&page=10`);
      });
    }
  });

  describe('the pagination 400s', () => {
    for (const value of ['0', '-1', 'abc', '']) {
      it(`?page=${value}: 400 "Page should not be less than 1"`, async () => {
        expectPaginationError(
          await request(server.url, 'GET', `/dummies?page=${value}`),
          'Page should not be less than 1',
          `?page=${value}`,
        );
      });
    }

    it('?page=9223372036854775807: 400 "Page parameter is too large."', async () => {
      expectPaginationError(
        await request(server.url, 'GET', '/dummies?page=9223372036854775807'),
        'Page parameter is too large.',
        'PHP_INT_MAX',
      );
    });

    it('?page=99999999999999999999 (past PHP_INT_MAX, which the cast saturates to): 400 "Page parameter is too large."', async () => {
      expectPaginationError(
        await request(server.url, 'GET', '/dummies?page=99999999999999999999'),
        'Page parameter is too large.',
        'past PHP_INT_MAX',
      );
    });

    it('?itemsPerPage=-1: 400 "Limit should not be less than 0"', async () => {
      expectPaginationError(
        await request(server.url, 'GET', '/dummies?itemsPerPage=-1'),
        'Limit should not be less than 0',
        '?itemsPerPage=-1',
      );
    });

    it('?itemsPerPage=0&page=2: 400 "Page should not be greater than 1 if limit is equal to 0"', async () => {
      expectPaginationError(
        await request(server.url, 'GET', '/dummies?itemsPerPage=0&page=2'),
        'Page should not be greater than 1 if limit is equal to 0',
        '?itemsPerPage=0&page=2',
      );
    });

    it('the errors come from paging: ?pagination=false&page=0 and ?pagination=false&itemsPerPage=-1 answer 200', async () => {
      expect(memberIds(await getDoc(server.url, '/dummies?pagination=false&page=0'))).to.deep.equal(range(1, 30));
      expect(memberIds(await getDoc(server.url, '/dummies?pagination=false&itemsPerPage=-1'))).to.deep.equal(
        range(1, 30),
      );
    });
  });

  describe('PHP int readings of itemsPerPage', () => {
    it('?itemsPerPage=0: member [], totalItems 30', async () => {
      const doc = await getDoc(server.url, '/dummies?itemsPerPage=0');
      expect(doc.member).to.deep.equal([]);
      expect(doc.totalItems).to.equal(30);
    });
    it('?itemsPerPage=abc casts to 0: member [], totalItems 30, the link keeps abc', async () => {
      const doc = await getDoc(server.url, '/dummies?itemsPerPage=abc');
      expect(doc.member).to.deep.equal([]);
      expect(doc.totalItems).to.equal(30);
      expect(doc.view).to.deep.equal({ '@id': '/dummies?itemsPerPage=abc', '@type': VIEW });
    });
    it('?itemsPerPage=4.9 casts to 4; ?itemsPerPage=5abc to 5', async () => {
      expect(memberIds(await getDoc(server.url, '/dummies?itemsPerPage=4.9'))).to.deep.equal([1, 2, 3, 4]);
      expect(memberIds(await getDoc(server.url, '/dummies?itemsPerPage=5abc'))).to.deep.equal([1, 2, 3, 4, 5]);
    });
    it('?itemsPerPage=9223372036854775807 (PHP_INT_MAX, no maximum configured): 200, every item on page 1', async () => {
      const r = await request(server.url, 'GET', '/dummies?itemsPerPage=9223372036854775807');
      expect(r.status, r.text.slice(0, 300)).to.equal(200);
      expect(memberIds(r.json)).to.deep.equal(range(1, 30));
      expect(r.json.totalItems).to.equal(30);
      expect(r.json.view).to.deep.equal({ '@id': '/dummies?itemsPerPage=9223372036854775807', '@type': VIEW });
    });
    it('?itemsPerPage=9223372036854775807&partial=1: 200, every item, no next', async () => {
      const r = await request(server.url, 'GET', '/dummies?itemsPerPage=9223372036854775807&partial=1');
      expect(r.status, r.text.slice(0, 300)).to.equal(200);
      expect(memberIds(r.json)).to.deep.equal(range(1, 30));
      expect(r.json.view).to.deep.equal({
        '@id': '/dummies?itemsPerPage=9223372036854775807&partial=1&page=1',
        '@type': VIEW,
      });
    });
    it('?itemsPerPage=9007199254740992 (2^53, past a double’s exact integers): 200, every item', async () => {
      const r = await request(server.url, 'GET', '/dummies?itemsPerPage=9007199254740992');
      expect(r.status, r.text.slice(0, 300)).to.equal(200);
      expect(memberIds(r.json)).to.deep.equal(range(1, 30));
    });
    it('?itemsPerPage=9223372036854775807&page=2: 400 "Page parameter is too large."', async () => {
      expectPaginationError(
        await request(server.url, 'GET', '/dummies?itemsPerPage=9223372036854775807&page=2'),
        'Page parameter is too large.',
        'huge limit, page 2',
      );
    });
    it('no maximum configured: ?itemsPerPage=1000 returns every item on one page (a view with @id and @type)', async () => {
      const doc = await getDoc(server.url, '/dummies?itemsPerPage=1000');
      expect(memberIds(doc)).to.deep.equal(range(1, 30));
      expect(doc.view).to.deep.equal({ '@id': '/dummies?itemsPerPage=1000', '@type': VIEW });
    });
  });
});
