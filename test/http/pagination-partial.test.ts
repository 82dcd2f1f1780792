/**
 * Partial pagination (docs/behaviour.md, "Collections and pagination") — no `totalItems`, no
 * `first`/`last`, and no count query, proved with a store that counts the calls it receives; `next`
 * on a page that is not the last, and none on the last page even when it is full (our documented
 * choice, docs/behaviour.md; API Platform shows one there, its "assumed bug").
 */
import { expect } from 'chai';
import {
  dummy,
  getDoc,
  memberIds,
  named,
  pfixture,
  range,
  seed,
  startSpiedService,
  withoutSearch,
  type SpiedService,
} from './pagination-helpers.js';

const VIEW = 'PartialCollectionView';

describe('HTTP pagination: partial pagination (in process, counting store calls)', () => {
  let svc: SpiedService;
  before(async () => {
    svc = await startSpiedService(pfixture('dummies-switches-on.api'));
    await seed(svc.url, '/dummies', named(30, 'Dummy #'));
  });
  after(async () => {
    await svc?.stop();
  });

  /** The number of count queries `fetch` caused on the Dummy collection. */
  async function countsDuring<T>(fetch: () => Promise<T>): Promise<{ result: T; counts: number }> {
    const before = svc.counts('Dummy');
    const result = await fetch();
    return { result, counts: svc.counts('Dummy') - before };
  }

  it('the spy sees the count query of a full page (so a zero below means something)', async () => {
    const { result, counts } = await countsDuring(() => getDoc(svc.url, '/dummies?page=2'));
    expect(result.totalItems).to.equal(30);
    expect(counts).to.equal(1);
  });

  it('?partial=1: page 1 with next only; no totalItems; no count query', async () => {
    const { result, counts } = await countsDuring(() => getDoc(svc.url, '/dummies?partial=1'));
    expect(withoutSearch(result)).to.deep.equal({
      '@context': '/contexts/Dummy',
      '@id': '/dummies',
      '@type': 'Collection',
      member: [1, 2, 3].map((id) => dummy(id)),
      view: { '@id': '/dummies?partial=1&page=1', '@type': VIEW, next: '/dummies?partial=1&page=2' },
    });
    expect(counts).to.equal(0);
  });

  it('?partial=1&page=9 (not the last page): previous and next; no count query', async () => {
    const { result, counts } = await countsDuring(() => getDoc(svc.url, '/dummies?partial=1&page=9'));
    expect(memberIds(result)).to.deep.equal([25, 26, 27]);
    expect(result).to.not.have.property('totalItems');
    expect(result.view).to.deep.equal({
      '@id': '/dummies?partial=1&page=9',
      '@type': VIEW,
      previous: '/dummies?partial=1&page=8',
      next: '/dummies?partial=1&page=10',
    });
    expect(counts).to.equal(0);
  });

  it('?partial=1&page=10 (the last page, full): previous and NO next; no count query', async () => {
    const { result, counts } = await countsDuring(() => getDoc(svc.url, '/dummies?partial=1&page=10'));
    expect(memberIds(result)).to.deep.equal([28, 29, 30]);
    expect(result).to.not.have.property('totalItems');
    expect(result.view).to.deep.equal({
      '@id': '/dummies?partial=1&page=10',
      '@type': VIEW,
      previous: '/dummies?partial=1&page=9',
    });
    expect(counts).to.equal(0);
  });

  it('?partial=1&page=11 (past the end): member [], previous, no next', async () => {
    const { result, counts } = await countsDuring(() => getDoc(svc.url, '/dummies?partial=1&page=11'));
    expect(result.member).to.deep.equal([]);
    expect(result.view).to.deep.equal({
      '@id': '/dummies?partial=1&page=11',
      '@type': VIEW,
      previous: '/dummies?partial=1&page=10',
    });
    expect(counts).to.equal(0);
  });

  it('a partial last page that is not full: no next', async () => {
    const doc = await getDoc(svc.url, '/dummies?partial=1&itemsPerPage=7&page=5');
    expect(memberIds(doc)).to.deep.equal([29, 30]);
    expect(doc.view).to.deep.equal({
      '@id': '/dummies?itemsPerPage=7&partial=1&page=5',
      '@type': VIEW,
      previous: '/dummies?itemsPerPage=7&partial=1&page=4',
    });
  });

  it('a filtered partial collection that fits in one page: the view still holds @id with the page, no links, no count', async () => {
    const { result, counts } = await countsDuring(() => getDoc(svc.url, '/dummies?partial=1&id[lte]=3'));
    expect(memberIds(result)).to.deep.equal([1, 2, 3]);
    expect(result.view).to.deep.equal({ '@id': '/dummies?id%5Blte%5D=3&partial=1&page=1', '@type': VIEW });
    expect(counts).to.equal(0);
  });

  it('a partial page holding the whole collection: @id with the page, no previous, no next', async () => {
    const doc = await getDoc(svc.url, '/dummies?partial=1&itemsPerPage=100');
    expect(memberIds(doc)).to.deep.equal(range(1, 30));
    expect(doc.view).to.deep.equal({ '@id': '/dummies?itemsPerPage=100&partial=1&page=1', '@type': VIEW });
  });

  it('walking next from page 1 visits 30 items once, in 10 pages, without a count query', async () => {
    const before = svc.counts('Dummy');
    const seen: number[] = [];
    let path: string | undefined = '/dummies?partial=1';
    let pages = 0;
    while (path !== undefined && pages < 20) {
      const doc = await getDoc(svc.url, path);
      seen.push(...memberIds(doc));
      path = doc.view.next;
      pages++;
    }
    expect(pages).to.equal(10);
    expect(seen).to.deep.equal(range(1, 30));
    expect(svc.counts('Dummy') - before).to.equal(0);
  });
});

describe('HTTP pagination: partial pagination from the options (in process, counting store calls)', () => {
  let svc: SpiedService;
  before(async () => {
    svc = await startSpiedService(pfixture('levels.api'));
    for (const path of ['partial_resources', 'partial_operations']) await seed(svc.url, `/${path}`, named(10, 'Item '));
  });
  after(async () => {
    await svc?.stop();
  });

  it('resource paginationPartial: true runs no count query, on any page', async () => {
    const before = svc.counts('PartialResource');
    for (const page of [1, 2, 3, 4]) {
      const doc = await getDoc(svc.url, `/partial_resources?page=${page}`);
      expect(doc).to.not.have.property('totalItems');
    }
    expect(svc.counts('PartialResource') - before).to.equal(0);
  });

  it('the last page (items 9, 10) has no next', async () => {
    const doc = await getDoc(svc.url, '/partial_resources?page=3');
    expect(memberIds(doc)).to.deep.equal([9, 10]);
    expect(doc.view).to.deep.equal({
      '@id': '/partial_resources?page=3',
      '@type': VIEW,
      previous: '/partial_resources?page=2',
    });
  });

  it('operation paginationPartial: false over the resource true: one count query', async () => {
    const before = svc.counts('PartialOperation');
    const doc = await getDoc(svc.url, '/partial_operations');
    expect(doc.totalItems).to.equal(10);
    expect(svc.counts('PartialOperation') - before).to.equal(1);
  });
});
