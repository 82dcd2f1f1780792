/**
 * Cursor pagination (`paginationViaCursor`), where we must be correct and API Platform is not
 * (docs/behaviour.md, "Collections and pagination"):
 * no item skipped or repeated while following `next`, even with ties on the cursor field;
 * `previous` returns exactly the page before; no `next` when nothing follows; no `previous` on the
 * first page; no count query under partial pagination (counted by a spying store).
 */
import { expect } from 'chai';
import {
  duplicates,
  getDoc,
  memberIds,
  pfixture,
  range,
  seed,
  startSpiedService,
  walk,
  withoutSearch,
  type Doc,
  type SpiedService,
  type WalkedPage,
} from './pagination-helpers.js';

const VIEW = 'PartialCollectionView';

const event = (id: number): Record<string, unknown> => ({
  '@id': `/events/${id}`,
  '@type': 'Event',
  id,
  name: `Event ${id}`,
});
const events = (n: number): Record<string, unknown>[] => range(1, n).map((i) => ({ name: `Event ${i}` }));

/** Asserts the walk's pages, seen as the reverse walk saw them, are the same pages. */
function expectSamePagesReversed(backward: WalkedPage[], forward: WalkedPage[]): void {
  expect(backward.map((p) => p.ids)).to.deep.equal(forward.map((p) => p.ids).reverse());
}

describe('HTTP cursor pagination on the identifier, DESC (cursor-id.api: 10 events, 3 per page, partial)', () => {
  let svc: SpiedService;
  before(async () => {
    svc = await startSpiedService(pfixture('cursor-id.api'));
    await seed(svc.url, '/events', events(10));
  });
  after(async () => {
    await svc?.stop();
  });

  describe('the documented examples (our links only where items exist)', () => {
    it('GET /events?order[id]=desc: 10, 9, 8; @id without page; next id[lt]=8 appended; no previous on the first page', async () => {
      const doc = await getDoc(svc.url, '/events?order[id]=desc');
      expect(withoutSearch(doc)).to.deep.equal({
        '@context': '/contexts/Event',
        '@id': '/events',
        '@type': 'Collection',
        member: [10, 9, 8].map(event),
        view: { '@id': '/events?order%5Bid%5D=desc', '@type': VIEW, next: '/events?order%5Bid%5D=desc&id%5Blt%5D=8' },
      });
    });

    it('GET /events?order[id]=desc&id[gt]=10 (nothing above 10): member [], @id sorted, no previous', async () => {
      const doc = await getDoc(svc.url, '/events?order[id]=desc&id[gt]=10');
      expect(doc.member).to.deep.equal([]);
      expect(doc).to.not.have.property('totalItems');
      expect(doc.view['@id']).to.equal('/events?id%5Bgt%5D=10&order%5Bid%5D=desc');
      expect(doc.view['@type']).to.equal(VIEW);
      expect(doc.view).to.not.have.property('previous');
      expect(doc.view).to.not.have.property('first');
      expect(doc.view).to.not.have.property('last');
      // Whether an empty page links onwards is not settled (API Platform synthesises id[lt]=10, which
      // would skip item 10). If we give a next link, it must lead to 10, 9, 8.
      if (doc.view.next !== undefined)
        expect(memberIds(await getDoc(svc.url, doc.view.next))).to.deep.equal([10, 9, 8]);
    });
  });

  describe('without an order parameter the collection is sorted by the cursor (DESC)', () => {
    it('GET /events: 10, 9, 8 and next /events?id%5Blt%5D=8', async () => {
      const doc = await getDoc(svc.url, '/events');
      expect(withoutSearch(doc)).to.deep.equal({
        '@context': '/contexts/Event',
        '@id': '/events',
        '@type': 'Collection',
        member: [10, 9, 8].map(event),
        view: { '@id': '/events', '@type': VIEW, next: '/events?id%5Blt%5D=8' },
      });
    });
  });

  describe('following the links', () => {
    it('the second page: 7, 6, 5; the id key keeps its (sorted) place; previous id[gt]=7, next id[lt]=5', async () => {
      const doc = await getDoc(svc.url, '/events?order%5Bid%5D=desc&id%5Blt%5D=8');
      expect(memberIds(doc)).to.deep.equal([7, 6, 5]);
      expect(doc.view).to.deep.equal({
        '@id': '/events?id%5Blt%5D=8&order%5Bid%5D=desc',
        '@type': VIEW,
        previous: '/events?id%5Bgt%5D=7&order%5Bid%5D=desc',
        next: '/events?id%5Blt%5D=5&order%5Bid%5D=desc',
      });
    });

    it('previous is exactly the page before: from 4, 3, 2 back to 7, 6, 5 (API Platform gives 10, 9, 8)', async () => {
      const third = await getDoc(svc.url, '/events?id[lt]=5&order[id]=desc');
      expect(memberIds(third)).to.deep.equal([4, 3, 2]);
      expect(third.view.previous).to.equal('/events?id%5Bgt%5D=4&order%5Bid%5D=desc');
      const back = await getDoc(svc.url, third.view.previous);
      expect(memberIds(back)).to.deep.equal([7, 6, 5]);
      expect(back.view).to.deep.equal({
        '@id': '/events?id%5Bgt%5D=4&order%5Bid%5D=desc',
        '@type': VIEW,
        previous: '/events?id%5Bgt%5D=7&order%5Bid%5D=desc',
        next: '/events?id%5Blt%5D=5&order%5Bid%5D=desc',
      });
    });

    it('previous of the second page is the first page, which has no previous', async () => {
      const first = await getDoc(svc.url, '/events?id%5Bgt%5D=7&order%5Bid%5D=desc');
      expect(memberIds(first)).to.deep.equal([10, 9, 8]);
      expect(first.view).to.deep.equal({
        '@id': '/events?id%5Bgt%5D=7&order%5Bid%5D=desc',
        '@type': VIEW,
        next: '/events?id%5Blt%5D=8&order%5Bid%5D=desc',
      });
    });

    it('the last page (item 1) has previous and no next', async () => {
      const doc = await getDoc(svc.url, '/events?id[lt]=2&order[id]=desc');
      expect(memberIds(doc)).to.deep.equal([1]);
      expect(doc.view).to.deep.equal({
        '@id': '/events?id%5Blt%5D=2&order%5Bid%5D=desc',
        '@type': VIEW,
        previous: '/events?id%5Bgt%5D=1&order%5Bid%5D=desc',
      });
    });

    it('a full last page (id[lt]=4 gives 3, 2, 1) has no next', async () => {
      const doc = await getDoc(svc.url, '/events?id[lt]=4');
      expect(memberIds(doc)).to.deep.equal([3, 2, 1]);
      expect(doc.view).to.deep.equal({
        '@id': '/events?id%5Blt%5D=4',
        '@type': VIEW,
        previous: '/events?id%5Bgt%5D=3',
      });
    });

    it('walking next from the first page: 10..1 once each, in order; first has no previous, last no next', async () => {
      const pages = await walk(svc.url, '/events?order[id]=desc', 'next');
      expect(pages.map((p) => p.ids)).to.deep.equal([[10, 9, 8], [7, 6, 5], [4, 3, 2], [1]]);
      expect(pages[0].doc.view).to.not.have.property('previous');
      expect(pages[pages.length - 1].doc.view).to.not.have.property('next');
    });

    it('walking previous back from the last page gives the same pages in reverse', async () => {
      const forward = await walk(svc.url, '/events?order[id]=desc', 'next');
      const backward = await walk(svc.url, forward[forward.length - 1].path, 'previous');
      expectSamePagesReversed(backward, forward);
      expect(backward[backward.length - 1].doc.view).to.not.have.property('previous');
    });

    it('?order[id]=asc turns the cursor around: 1, 2, 3 with next id[gt]=3, and the walk ascends', async () => {
      const doc = await getDoc(svc.url, '/events?order[id]=asc');
      expect(memberIds(doc)).to.deep.equal([1, 2, 3]);
      expect(doc.view).to.deep.equal({
        '@id': '/events?order%5Bid%5D=asc',
        '@type': VIEW,
        next: '/events?order%5Bid%5D=asc&id%5Bgt%5D=3',
      });
      const pages = await walk(svc.url, '/events?order[id]=asc', 'next');
      expect(pages.map((p) => p.ids)).to.deep.equal([[1, 2, 3], [4, 5, 6], [7, 8, 9], [10]]);
      const backward = await walk(svc.url, pages[pages.length - 1].path, 'previous');
      expectSamePagesReversed(backward, pages);
    });

    it('no count query under partial cursor pagination (every page, both directions)', async () => {
      const before = svc.counts('Event');
      const forward = await walk(svc.url, '/events', 'next');
      await walk(svc.url, forward[forward.length - 1].path, 'previous');
      expect(forward.length).to.equal(4);
      for (const p of forward) expect(p.doc).to.not.have.property('totalItems');
      expect(svc.counts('Event') - before).to.equal(0);
    });

    it('the spy does count (sanity): the store received finds for those pages', async () => {
      const before = svc.calls.get('Event')?.find ?? 0;
      await getDoc(svc.url, '/events');
      expect((svc.calls.get('Event')?.find ?? 0) - before).to.be.greaterThan(0);
    });
  });

  describe('other parameters in cursor links', () => {
    it('are kept and sorted, the new cursor key goes at the end', async () => {
      const doc = await getDoc(svc.url, '/events?zeta=1&alpha=2');
      expect(memberIds(doc)).to.deep.equal([10, 9, 8]);
      expect(doc.view).to.deep.equal({
        '@id': '/events?alpha=2&zeta=1',
        '@type': VIEW,
        next: '/events?alpha=2&zeta=1&id%5Blt%5D=8',
      });
      const next = await getDoc(svc.url, doc.view.next);
      expect(next.view).to.deep.equal({
        '@id': '/events?alpha=2&id%5Blt%5D=8&zeta=1',
        '@type': VIEW,
        previous: '/events?alpha=2&id%5Bgt%5D=7&zeta=1',
        next: '/events?alpha=2&id%5Blt%5D=5&zeta=1',
      });
    });

    it('a page parameter is not read and not written (@id without it)', async () => {
      const doc = await getDoc(svc.url, '/events?page=2');
      expect(memberIds(doc)).to.deep.equal([10, 9, 8]);
      expect(doc.view).to.deep.equal({ '@id': '/events', '@type': VIEW, next: '/events?id%5Blt%5D=8' });
    });
  });

  describe('range filters on the cursor field itself (a client bound stays in the links)', () => {
    // API Platform merges a cursor into the links by replacing the whole `id[...]` key, which drops
    // a client's own bound on that field; following `next` then leaves the filtered collection
    // (docs/behaviour.md, "Collections and pagination").
    it('walking next from ?id[gte]=3 visits 10..3 and nothing below 3', async () => {
      const pages = await walk(svc.url, '/events?id[gte]=3', 'next');
      expect(pages.flatMap((p) => p.ids)).to.deep.equal([10, 9, 8, 7, 6, 5, 4, 3]);
    });

    it('walking next from ?id[between]=3..6 visits 6, 5, 4, 3 only', async () => {
      const pages = await walk(svc.url, '/events?id[between]=3..6', 'next');
      expect(pages.flatMap((p) => p.ids)).to.deep.equal([6, 5, 4, 3]);
    });
  });

  describe('the JSON format', () => {
    it('Accept: application/json gives the bare array of the page', async () => {
      const doc = await getDoc(svc.url, '/events', { Accept: 'application/json' });
      expect(doc).to.deep.equal([10, 9, 8].map((id) => ({ id, name: `Event ${id}` })));
    });
  });
});

describe('HTTP cursor pagination: the empty collection (cursor-id.api, nothing seeded)', () => {
  let svc: SpiedService;
  before(async () => {
    svc = await startSpiedService(pfixture('cursor-id.api'));
  });
  after(async () => {
    await svc?.stop();
  });

  it('GET /events: member [], a view with only @id and @type, no totalItems, no count', async () => {
    const before = svc.counts('Event');
    const doc = await getDoc(svc.url, '/events');
    expect(withoutSearch(doc)).to.deep.equal({
      '@context': '/contexts/Event',
      '@id': '/events',
      '@type': 'Collection',
      member: [],
      view: { '@id': '/events', '@type': VIEW },
    });
    expect(svc.counts('Event') - before).to.equal(0);
  });
});

describe('HTTP cursor pagination: items inserted between two page fetches (cursor-id.api)', () => {
  let svc: SpiedService;
  before(async () => {
    svc = await startSpiedService(pfixture('cursor-id.api'));
    await seed(svc.url, '/events', events(10));
  });
  after(async () => {
    await svc?.stop();
  });

  it('new events posted after page 1 do not make a seen event reappear, and none is skipped', async () => {
    const first = await getDoc(svc.url, '/events');
    const seen = memberIds(first);
    expect(seen).to.deep.equal([10, 9, 8]);
    await seed(svc.url, '/events', [{ name: 'Event 11' }, { name: 'Event 12' }, { name: 'Event 13' }]);
    const rest = await walk(svc.url, first.view.next, 'next');
    for (const p of rest) seen.push(...p.ids);
    expect(duplicates(seen)).to.deep.equal([]);
    expect(seen).to.deep.equal([10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
  });
});

// ---------------------------------------------------------------------------------------------
// Non-unique cursor fields

/** 60 rankings: score (i * 7) % 5, so 12 items share each score 0..4; ids 1..60. */
const RANKINGS = range(1, 60).map((i) => ({ score: (i * 7) % 5, label: `R${i}` }));
/** 55 ladder rungs: score i % 3 (18 or 19 per score); ids 1..55. */
const LADDER = range(1, 55).map((i) => ({ score: i % 3, label: `L${i}` }));

type Scored = { id: number; score: number };

/**
 * Expected order: the score in `dir`, ties by identifier. The tie-breaker's direction is not
 * documented, so the caller passes the one the first page shows; `tieDirection` reads it.
 */
function expectedOrder(items: Scored[], dir: 'asc' | 'desc', tie: 'asc' | 'desc'): number[] {
  const s = dir === 'asc' ? 1 : -1;
  const t = tie === 'asc' ? 1 : -1;
  return [...items].sort((a, b) => s * (a.score - b.score) || t * (a.id - b.id)).map((x) => x.id);
}

/** The identifier direction within ties on the given (walked) sequence; fails when it is not consistent. */
function tieDirection(sequence: Scored[]): 'asc' | 'desc' {
  const dirs = new Set<string>();
  for (let i = 1; i < sequence.length; i++) {
    if (sequence[i].score === sequence[i - 1].score) dirs.add(sequence[i].id > sequence[i - 1].id ? 'asc' : 'desc');
  }
  expect([...dirs], 'ties must be ordered by identifier in one direction').to.have.lengthOf(1);
  return [...dirs][0] as 'asc' | 'desc';
}

const scoredOf = (pages: WalkedPage[]): Scored[] =>
  pages.flatMap((p) => p.doc.member.map((m: Doc) => ({ id: m.id, score: m.score })));

describe('HTTP cursor pagination on a non-unique field (cursor-ties.api)', () => {
  let svc: SpiedService;
  let rankings: Scored[];
  let ladder: Scored[];
  before(async () => {
    svc = await startSpiedService(pfixture('cursor-ties.api'));
    rankings = (await seed(svc.url, '/rankings', RANKINGS)).map((d: Doc) => ({ id: d.id, score: d.score }));
    ladder = (await seed(svc.url, '/ladders', LADDER)).map((d: Doc) => ({ id: d.id, score: d.score }));
  });
  after(async () => {
    await svc?.stop();
  });

  describe('score DESC, partial (/rankings, 60 items, 12 per score, 4 per page)', () => {
    it('walking next visits all 60 once each, in score order, ties in one identifier order; 15 full pages', async () => {
      const pages = await walk(svc.url, '/rankings', 'next');
      const seq = scoredOf(pages);
      const ids = seq.map((x) => x.id);
      expect(duplicates(ids), 'repeated').to.deep.equal([]);
      expect(
        [...ids].sort((a, b) => a - b),
        'skipped',
      ).to.deep.equal(range(1, 60));
      expect(ids).to.deep.equal(expectedOrder(rankings, 'desc', tieDirection(seq)));
      expect(pages.map((p) => p.ids.length)).to.deep.equal(Array(15).fill(4));
      expect(pages[0].doc.view).to.not.have.property('previous');
      expect(pages[14].doc.view, 'a full last page has no next').to.not.have.property('next');
      for (const p of pages) expect(p.doc).to.not.have.property('totalItems');
    });

    it('walking previous back from the last page returns exactly the same pages', async () => {
      const forward = await walk(svc.url, '/rankings', 'next');
      const backward = await walk(svc.url, forward[forward.length - 1].path, 'previous');
      expectSamePagesReversed(backward, forward);
      expect(backward[backward.length - 1].doc.view).to.not.have.property('previous');
    });

    it('links carry the cursor value and the tie-breaker in the range-filter form (score[lt]=…)', async () => {
      const doc = await getDoc(svc.url, '/rankings');
      const next = new URL(doc.view.next, 'http://x');
      expect(next.pathname).to.equal('/rankings');
      const last = doc.member[doc.member.length - 1];
      expect(next.searchParams.get('score[lt]')).to.equal(String(last.score));
      expect(next.searchParams.get('id[lt]') ?? next.searchParams.get('id[gt]')).to.equal(String(last.id));
    });

    it('?itemsPerPage=7: 9 pages (8 of 7, then 4), links keep itemsPerPage, all once, in order', async () => {
      const pages = await walk(svc.url, '/rankings?itemsPerPage=7', 'next');
      expect(pages.map((p) => p.ids.length)).to.deep.equal([7, 7, 7, 7, 7, 7, 7, 7, 4]);
      for (const p of pages.slice(1)) expect(p.path).to.match(/[?&]itemsPerPage=7(&|$)/);
      const seq = scoredOf(pages);
      expect(seq.map((x) => x.id)).to.deep.equal(expectedOrder(rankings, 'desc', tieDirection(seq)));
      const backward = await walk(svc.url, pages[pages.length - 1].path, 'previous');
      expectSamePagesReversed(backward, pages);
    });

    it('?itemsPerPage=12 (page boundaries on tie boundaries) and ?itemsPerPage=13 (one past them)', async () => {
      for (const size of [12, 13, 1]) {
        const pages = await walk(svc.url, `/rankings?itemsPerPage=${size}`, 'next');
        const seq = scoredOf(pages);
        expect(
          seq.map((x) => x.id),
          `itemsPerPage=${size}`,
        ).to.deep.equal(expectedOrder(rankings, 'desc', tieDirection(seq)));
        expect(pages.length, `itemsPerPage=${size}`).to.equal(Math.ceil(60 / size));
        const backward = await walk(svc.url, pages[pages.length - 1].path, 'previous');
        expectSamePagesReversed(backward, pages);
      }
    });

    it('?order[score]=asc turns the cursor around: ascending walk, all once, exact previous', async () => {
      const pages = await walk(svc.url, '/rankings?order[score]=asc', 'next');
      const seq = scoredOf(pages);
      expect(seq.map((x) => x.id)).to.deep.equal(expectedOrder(rankings, 'asc', tieDirection(seq)));
      expect(pages[0].doc.view.next).to.include('score%5Bgt%5D=');
      const backward = await walk(svc.url, pages[pages.length - 1].path, 'previous');
      expectSamePagesReversed(backward, pages);
    });

    it('no count query under partial cursor pagination', async () => {
      const before = svc.counts('Ranking');
      await walk(svc.url, '/rankings', 'next');
      expect(svc.counts('Ranking') - before).to.equal(0);
    });
  });

  describe('score ASC, not partial (/ladders, 55 items, 18-19 per score, 4 per page)', () => {
    it('walking next visits all 55 once each in ascending score order; totalItems 55; no first/last', async () => {
      const pages = await walk(svc.url, '/ladders', 'next');
      const seq = scoredOf(pages);
      const ids = seq.map((x) => x.id);
      expect(duplicates(ids)).to.deep.equal([]);
      expect(ids).to.deep.equal(expectedOrder(ladder, 'asc', tieDirection(seq)));
      expect(pages.map((p) => p.ids.length)).to.deep.equal([...Array(13).fill(4), 3]);
      for (const p of pages) {
        expect(p.doc.totalItems).to.equal(55);
        expect(p.doc.view).to.not.have.property('first');
        expect(p.doc.view).to.not.have.property('last');
      }
      expect(pages[0].doc.view).to.not.have.property('previous');
      expect(pages[pages.length - 1].doc.view).to.not.have.property('next');
      expect(pages[0].doc.view.next).to.include('score%5Bgt%5D=');
    });

    it('walking previous back returns the same pages', async () => {
      const forward = await walk(svc.url, '/ladders', 'next');
      const backward = await walk(svc.url, forward[forward.length - 1].path, 'previous');
      expectSamePagesReversed(backward, forward);
    });

    it('?order[score]=desc: a descending walk', async () => {
      const pages = await walk(svc.url, '/ladders?order[score]=desc', 'next');
      const seq = scoredOf(pages);
      expect(seq.map((x) => x.id)).to.deep.equal(expectedOrder(ladder, 'desc', tieDirection(seq)));
      const backward = await walk(svc.url, pages[pages.length - 1].path, 'previous');
      expectSamePagesReversed(backward, pages);
    });
  });
});

describe('HTTP cursor pagination on a non-unique field: items inserted while walking (cursor-ties.api)', () => {
  let svc: SpiedService;
  before(async () => {
    svc = await startSpiedService(pfixture('cursor-ties.api'));
    await seed(svc.url, '/rankings', RANKINGS);
  });
  after(async () => {
    await svc?.stop();
  });

  it('items posted between pages (on the boundary score, above and below) never make a seen item reappear', async () => {
    const first = await getDoc(svc.url, '/rankings');
    const second = await getDoc(svc.url, first.view.next);
    const seenScored: Scored[] = [...first.member, ...second.member].map((m: Doc) => ({ id: m.id, score: m.score }));
    const boundary = seenScored[seenScored.length - 1].score;
    await seed(svc.url, '/rankings', [
      { score: boundary, label: 'tie' },
      { score: boundary, label: 'tie 2' },
      { score: boundary + 1, label: 'top' },
      { score: 0, label: 'bottom' },
      { score: boundary - 1, label: 'below' },
    ]);
    const rest = await walk(svc.url, second.view.next, 'next');
    const all = [...seenScored, ...scoredOf(rest)];
    const ids = all.map((x) => x.id);
    expect(duplicates(ids), 'reappeared').to.deep.equal([]);
    for (const id of range(1, 60)) expect(ids, `item ${id} skipped`).to.include(id);
    // still in score order
    for (let i = 1; i < all.length; i++) expect(all[i].score, `position ${i}`).to.be.at.most(all[i - 1].score);
    // the items below the position reached are found (61..65 are the new ones)
    const newIds = ids.filter((id) => id > 60);
    expect(newIds).to.include.members([64, 65]); // score 0 and boundary - 1 come after the position
    expect(newIds).to.not.include(63); // a score above the boundary comes before it
  });
});

// ---------------------------------------------------------------------------------------------
// A datetime cursor

/** ids 1..7 in this POST order; ascending time: 2, 3, 1, 5, 4, 6, 7. */
const MOMENTS = [
  { at: '2024-01-03T12:00:00Z', label: 'M1' },
  { at: '2024-01-01T12:00:00+00:00', label: 'M2' },
  { at: '2024-01-02T13:00:00+01:00', label: 'M3' },
  { at: '2024-01-05T12:00:00+00:00', label: 'M4' },
  { at: '2024-01-04T12:00:00+00:00', label: 'M5' },
  { at: '2024-01-06T12:00:00+00:00', label: 'M6' },
  { at: '2024-01-07T12:00:00+00:00', label: 'M7' },
];
const enc = (s: string): string => encodeURIComponent(s);
const ISO = (day: number): string => `2024-01-0${day}T12:00:00+00:00`;

describe('HTTP cursor pagination on a datetime, ASC (cursor-ties.api /moments, 3 per page, partial)', () => {
  let svc: SpiedService;
  before(async () => {
    svc = await startSpiedService(pfixture('cursor-ties.api'));
    await seed(svc.url, '/moments', MOMENTS);
  });
  after(async () => {
    await svc?.stop();
  });

  it('page 1: 2, 3, 1 with their UTC values; next holds the ISO 8601 value, URL-encoded', async () => {
    const doc = await getDoc(svc.url, '/moments');
    expect(withoutSearch(doc)).to.deep.equal({
      '@context': '/contexts/Moment',
      '@id': '/moments',
      '@type': 'Collection',
      member: [
        { '@id': '/moments/2', '@type': 'Moment', id: 2, at: ISO(1), label: 'M2' },
        { '@id': '/moments/3', '@type': 'Moment', id: 3, at: ISO(2), label: 'M3' },
        { '@id': '/moments/1', '@type': 'Moment', id: 1, at: ISO(3), label: 'M1' },
      ],
      view: { '@id': '/moments', '@type': VIEW, next: `/moments?at%5Bgt%5D=${enc(ISO(3))}&id%5Bgt%5D=1` },
    });
    expect(doc.view.next).to.include('at%5Bgt%5D=2024-01-03T12%3A00%3A00%2B00%3A00');
  });

  it('page 2: 5, 4, 6; previous and next in the same form', async () => {
    const doc = await getDoc(svc.url, `/moments?at%5Bgt%5D=${enc(ISO(3))}&id%5Bgt%5D=1`);
    expect(memberIds(doc)).to.deep.equal([5, 4, 6]);
    expect(doc.view).to.deep.equal({
      '@id': `/moments?at%5Bgt%5D=${enc(ISO(3))}&id%5Bgt%5D=1`,
      '@type': VIEW,
      previous: `/moments?at%5Blt%5D=${enc(ISO(4))}&id%5Blt%5D=5`,
      next: `/moments?at%5Bgt%5D=${enc(ISO(6))}&id%5Bgt%5D=6`,
    });
  });

  it('previous of page 2 is page 1 (no previous); the last page (7) has no next', async () => {
    const first = await getDoc(svc.url, `/moments?at%5Blt%5D=${enc(ISO(4))}&id%5Blt%5D=5`);
    expect(memberIds(first)).to.deep.equal([2, 3, 1]);
    expect(first.view).to.not.have.property('previous');
    const last = await getDoc(svc.url, `/moments?at%5Bgt%5D=${enc(ISO(6))}&id%5Bgt%5D=6`);
    expect(memberIds(last)).to.deep.equal([7]);
    expect(last.view).to.deep.equal({
      '@id': `/moments?at%5Bgt%5D=${enc(ISO(6))}&id%5Bgt%5D=6`,
      '@type': VIEW,
      previous: `/moments?at%5Blt%5D=${enc(ISO(7))}&id%5Blt%5D=7`,
    });
  });

  it('a cursor value written with another offset or Z reads the same instant', async () => {
    const z = await getDoc(svc.url, `/moments?at%5Bgt%5D=${enc('2024-01-03T12:00:00Z')}&id%5Bgt%5D=1`);
    expect(memberIds(z)).to.deep.equal([5, 4, 6]);
    const shifted = await getDoc(svc.url, `/moments?at%5Bgt%5D=${enc('2024-01-03T14:00:00+02:00')}&id%5Bgt%5D=1`);
    expect(memberIds(shifted)).to.deep.equal([5, 4, 6]);
  });

  it('walks both ways over the same pages; no count query', async () => {
    const before = svc.counts('Moment');
    const forward = await walk(svc.url, '/moments', 'next');
    expect(forward.map((p) => p.ids)).to.deep.equal([[2, 3, 1], [5, 4, 6], [7]]);
    const backward = await walk(svc.url, forward[forward.length - 1].path, 'previous');
    expectSamePagesReversed(backward, forward);
    expect(svc.counts('Moment') - before).to.equal(0);
  });

  it('?order[at]=desc: newest first, links with at[lt]', async () => {
    const doc = await getDoc(svc.url, '/moments?order[at]=desc');
    expect(memberIds(doc)).to.deep.equal([7, 6, 4]);
    expect(doc.view.next).to.equal(`/moments?order%5Bat%5D=desc&at%5Blt%5D=${enc(ISO(5))}&id%5Blt%5D=4`);
    const pages = await walk(svc.url, '/moments?order[at]=desc', 'next');
    expect(pages.map((p) => p.ids)).to.deep.equal([[7, 6, 4], [5, 1, 3], [2]]);
  });
});

describe('HTTP cursor pagination on a datetime with ties (cursor-ties.api /moments)', () => {
  let svc: SpiedService;
  const DAYS = 6;
  before(async () => {
    svc = await startSpiedService(pfixture('cursor-ties.api'));
    // 40 moments on 6 distinct instants, in a scrambled order.
    await seed(
      svc.url,
      '/moments',
      range(1, 40).map((i) => ({ at: ISO(((i * 5) % DAYS) + 1), label: `T${i}` })),
    );
  });
  after(async () => {
    await svc?.stop();
  });

  it('walking next visits all 40 once each, in time order; previous walks back over the same pages', async () => {
    const pages = await walk(svc.url, '/moments', 'next');
    const seq = pages.flatMap((p) => p.doc.member.map((m: Doc) => ({ id: m.id as number, at: m.at as string })));
    const ids = seq.map((x) => x.id);
    expect(duplicates(ids)).to.deep.equal([]);
    expect([...ids].sort((a, b) => a - b)).to.deep.equal(range(1, 40));
    for (let i = 1; i < seq.length; i++) expect(seq[i].at >= seq[i - 1].at, `position ${i}`).to.equal(true);
    expect(pages.length).to.equal(14);
    const backward = await walk(svc.url, pages[pages.length - 1].path, 'previous');
    expectSamePagesReversed(backward, pages);
  });
});
