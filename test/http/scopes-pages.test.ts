/**
 * A scoped collection's totals and links agree with its members on every pagination mode (docs/scopes.md, "Reads";
 * fixture scopes-faces.api, Task: each user's tasks, staff see all, two a page): for each caller, following `next`
 * from the first page visits exactly the caller's tasks once, `totalItems` counts them, `last` is their last page,
 * `previous` walks the same pages back, and no link leads to a page past the caller's last task, on page, partial,
 * cursor and partial cursor collections (either way round) over REST.
 */
import { expect } from 'chai';
import { fixture, request, useServer } from './harness.js';
import { bearer, token } from './security-helpers.js';

/** Who owns tasks 1 to 9, in the order they are created. */
const OWNERS = ['ann', 'bob', 'ann', 'ann', 'bob', 'ann', 'bob', 'ann', 'bob'];
const PER_PAGE = 2;

interface View {
  '@id': string;
  first?: string;
  last?: string;
  previous?: string;
  next?: string;
}
interface Page {
  path: string;
  ids: number[];
  totalItems?: number;
  view?: View;
}

/** The pagination modes of Task: where each starts, its order, whether it counts and numbers its pages. */
const MODES = [
  { name: 'page', path: '/tasks', descending: false, counted: true, numbered: true, cursor: false },
  { name: 'partial', path: '/tasks/partial', descending: false, counted: false, numbered: false, cursor: false },
  { name: 'cursor', path: '/tasks/cursor', descending: true, counted: true, numbered: false, cursor: true },
  {
    name: 'partial cursor',
    path: '/tasks/partial-cursor',
    descending: true,
    counted: false,
    numbered: false,
    cursor: true,
  },
  // The client turns the cursor around: the links probe the other side of the caller's first and last tasks.
  {
    name: 'cursor, ascending',
    path: '/tasks/cursor?order%5Bid%5D=asc',
    descending: false,
    counted: true,
    numbered: false,
    cursor: true,
  },
  {
    name: 'partial cursor, ascending',
    path: '/tasks/partial-cursor?order%5Bid%5D=asc',
    descending: false,
    counted: false,
    numbered: false,
    cursor: true,
  },
];

describe('row-level scopes: totals and links of every pagination mode (fixture scopes-faces.api)', function () {
  this.timeout(120_000);
  const server = useServer(fixture('scopes-faces.api'));
  const callers: Record<string, Record<string, string>> = {};

  before(async () => {
    for (const sub of ['ann', 'bob', 'carl']) callers[sub] = bearer(await token({ sub }));
    callers.sam = bearer(await token({ sub: 'sam', roles: ['ROLE_STAFF'] }));
    callers.anonymous = {};
    for (const [i, owner] of OWNERS.entries()) {
      const body = { owner, title: `task ${i + 1}` };
      const created = await request(server.url, 'POST', '/tasks', { headers: callers[owner], body });
      expect(created.status, created.text).to.equal(201);
    }
  });

  const read = async (who: string, path: string): Promise<Page> => {
    const r = await request(server.url, 'GET', path, { headers: callers[who] });
    expect(r.status, `${path}: ${r.text}`).to.equal(200);
    const ids = (r.json.member as { id: number }[]).map((m) => m.id);
    return { path, ids, totalItems: r.json.totalItems, view: r.json.view };
  };
  /** The pages met following `link` from `path`, at most one per task and one more. */
  const follow = async (who: string, path: string, link: 'next' | 'previous'): Promise<Page[]> => {
    const pages = [await read(who, path)];
    for (let at = pages[0]!; at.view?.[link] !== undefined; pages.push(at)) {
      expect(pages.length, `${link} links past the caller's tasks`).to.be.at.most(OWNERS.length);
      at = await read(who, at.view[link]);
    }
    return pages;
  };

  for (const mode of MODES)
    for (const who of ['ann', 'bob', 'carl', 'anonymous', 'sam'])
      it(`${mode.name} pagination, ${who}: the links visit the caller's tasks, the totals count them`, async () => {
        const visible = OWNERS.flatMap((o, i) => (who === 'sam' || o === who ? [i + 1] : []));
        const inOrder = mode.descending ? [...visible].reverse() : visible;
        const pages = await follow(who, mode.path, 'next');
        expect(pages.map((p) => p.ids)).to.deep.equal(chunks(inOrder));
        for (const page of pages) expect(page.totalItems).to.equal(mode.counted ? visible.length : undefined);
        const last = pages.at(-1)!;
        if (mode.numbered) {
          const lastPage = Math.max(1, Math.ceil(visible.length / PER_PAGE));
          // A single page has no view (API Platform's), so a count that ignored the scope would show one.
          const expected = lastPage === 1 ? undefined : `${mode.path}?page=${lastPage}`;
          for (const page of pages) expect(page.view?.last).to.equal(expected);
          const past = await read(who, `${mode.path}?page=${lastPage + 1}`);
          expect(past.ids).to.deep.equal([]);
          expect(past.totalItems).to.equal(visible.length);
        }
        if (mode.cursor && inOrder.length > 0) {
          // A client's own bound just outside the caller's first task: only other users' tasks lie beyond it.
          const first = inOrder[0]!;
          const bound = mode.descending ? `id%5Blt%5D=${first + 1}` : `id%5Bgt%5D=${first - 1}`;
          const bounded = await follow(who, `${mode.path}${mode.path.includes('?') ? '&' : '?'}${bound}`, 'next');
          expect(bounded.map((p) => p.ids)).to.deep.equal(chunks(inOrder));
          expect(bounded[0]!.view?.previous).to.equal(undefined);
        }
        if (pages.length > 1) {
          const back = await follow(who, last.view!['@id'], 'previous');
          expect(back.map((p) => p.ids)).to.deep.equal(pages.map((p) => p.ids).reverse());
        }
      });
});

/** The pages of `ids`, PER_PAGE a page; one empty page for none. */
function chunks(ids: number[]): number[][] {
  const pages: number[][] = [];
  for (let i = 0; i < ids.length; i += PER_PAGE) pages.push(ids.slice(i, i + PER_PAGE));
  return pages.length === 0 ? [[]] : pages;
}
