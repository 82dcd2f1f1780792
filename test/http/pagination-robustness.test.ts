/**
 * Pagination off on a larger collection (the server streams that document;
 * compared as parsed JSON, key order aside), and hostile query strings, which must never give a
 * 500.
 */
import { expect } from 'chai';
import { JSON_UTF8, JSONLD, PROBLEM_JSON, request, type RunningServer, startServer, useServer } from './harness.js';
import { duplicates, memberIds, pfixture, range, seedConcurrently } from './pagination-helpers.js';

const LARGE = 5000;

describe(`HTTP pagination off on ${LARGE} items (dummies-switches-on.api)`, function () {
  this.timeout(120_000);
  const server = useServer(pfixture('dummies-switches-on.api'));
  before(async () => {
    await seedConcurrently(
      server.url,
      '/dummies',
      range(1, LARGE).map((i) => ({ name: `Dummy #${i}` })),
    );
  });

  it('?pagination=false: 200, every member once (ids 1..5000 in order), totalItems 5000, no view', async () => {
    const r = await request(server.url, 'GET', '/dummies?pagination=false');
    expect(r.status).to.equal(200);
    expect(r.headers.get('content-type')).to.equal(JSONLD);
    expect(r.json, 'the body parses as JSON').to.be.an('object');
    // The `search` template is the filters' business (asserted with them), not pagination's.
    const { member, search, ...rest } = r.json;
    expect(search).to.be.an('object');
    expect(rest).to.deep.equal({
      '@context': '/contexts/Dummy',
      '@id': '/dummies',
      '@type': 'Collection',
      totalItems: LARGE,
    });
    const ids = member.map((m: { id: number }) => m.id);
    expect(duplicates(ids)).to.deep.equal([]);
    expect(ids).to.deep.equal(range(1, LARGE));
    // the names match the ids (ids were assigned in arrival order)
    const names = new Set(member.map((m: { name: string }) => m.name));
    expect(names.size).to.equal(LARGE);
    for (const m of member.slice(0, 5)) expect(m).to.have.all.keys('@id', '@type', 'id', 'name');
    expect(member[0]['@id']).to.equal('/dummies/1');
  });

  it('?pagination=false with a filter: the matches, totalItems, and a view with @id and @type', async () => {
    const r = await request(server.url, 'GET', '/dummies?pagination=false&id[gt]=1000');
    expect(r.status).to.equal(200);
    expect(r.json.totalItems).to.equal(LARGE - 1000);
    expect(memberIds(r.json)).to.deep.equal(range(1001, LARGE));
    expect(r.json.view).to.deep.equal({
      '@id': '/dummies?id%5Bgt%5D=1000&pagination=false',
      '@type': 'PartialCollectionView',
    });
  });

  it('?pagination=false&order[id]=desc: all, in reverse', async () => {
    const r = await request(server.url, 'GET', '/dummies?pagination=false&order[id]=desc');
    expect(r.status).to.equal(200);
    expect(memberIds(r.json)).to.deep.equal(range(1, LARGE).reverse());
    expect(r.json.totalItems).to.equal(LARGE);
  });

  it('?pagination=false in JSON: a bare array of all items', async () => {
    const r = await request(server.url, 'GET', '/dummies?pagination=false', {
      headers: { Accept: 'application/json' },
    });
    expect(r.status).to.equal(200);
    expect(r.headers.get('content-type')).to.equal(JSON_UTF8);
    expect(r.json).to.be.an('array').with.lengthOf(LARGE);
    expect(r.json.map((m: { id: number }) => m.id)).to.deep.equal(range(1, LARGE));
  });

  it('paginated, the same collection still counts 5000 and ends at page 1667', async () => {
    const r = await request(server.url, 'GET', '/dummies?page=1667');
    expect(r.status).to.equal(200);
    expect(r.json.totalItems).to.equal(LARGE);
    expect(memberIds(r.json)).to.deep.equal([4999, 5000]);
    expect(r.json.view.last).to.equal('/dummies?page=1667');
    expect(r.json.view).to.not.have.property('next');
  });

  it('two unpaginated reads at once while items are written: both complete with valid JSON', async () => {
    const reads = [
      request(server.url, 'GET', '/dummies?pagination=false'),
      request(server.url, 'GET', '/dummies?pagination=false'),
    ];
    const writes = range(1, 20).map((i) => request(server.url, 'POST', '/dummies', { body: { name: `Late ${i}` } }));
    const [a, b] = await Promise.all(reads);
    for (const w of await Promise.all(writes)) expect(w.status).to.equal(201);
    for (const r of [a, b]) {
      expect(r.status).to.equal(200);
      expect(r.json).to.be.an('object');
      const ids = memberIds(r.json);
      expect(duplicates(ids)).to.deep.equal([]);
      expect(r.json.totalItems).to.equal(ids.length);
      expect(ids.length).to.be.at.least(LARGE);
    }
  });
});

describe('HTTP pagination: hostile query strings never give a 500', () => {
  let server: RunningServer;
  let cursor: RunningServer;
  before(async () => {
    server = await startServer(pfixture('dummies-switches-on.api'));
    cursor = await startServer(pfixture('cursor-ties.api'));
    for (let i = 1; i <= 10; i++) {
      const a = await request(server.url, 'POST', '/dummies', { body: { name: `Dummy #${i}` } });
      const b = await request(cursor.url, 'POST', '/rankings', { body: { score: i % 3, label: `R${i}` } });
      const c = await request(cursor.url, 'POST', '/moments', {
        body: { at: `2024-01-0${(i % 9) + 1}T12:00:00+00:00` },
      });
      if (a.status !== 201 || b.status !== 201 || c.status !== 201)
        throw new Error(`seeding failed: ${a.text} ${b.text} ${c.text}`);
    }
  });
  after(async () => {
    await server?.stop();
    await cursor?.stop();
  });

  const long = 'x'.repeat(6000);
  const hostile = [
    'page[]=1',
    'page[a]=2',
    'page[0][0]=1',
    'itemsPerPage[a]=2',
    'itemsPerPage[]=5',
    'pagination[]=false',
    'partial[x]=1',
    'order=desc',
    'order[]=desc',
    'order[id][x]=1',
    'order[id][]=asc',
    'order[nope]=asc',
    'order[id]=sideways',
    'id[lt][]=3',
    'id[lt][x]=3',
    'id[between]=1..2..3',
    'id[between]=a..b',
    'id[between][]=1..2',
    'id[gt]=99999999999999999999999',
    'id[gt]=1e400',
    'id[lt]=-0',
    'id[]=1&id[]=2',
    'id[a][b][c][d][e][f][g]=1',
    'name[]=x',
    'name[a]=x',
    `name=${long}`,
    `page=${'9'.repeat(3000)}`,
    `itemsPerPage=${'9'.repeat(3000)}`,
    `${long}=1`,
    'name=%00',
    'page=%00',
    'itemsPerPage=%00',
    '%00=1',
    'id[lt]=%00',
    'name=%',
    'name=%zz',
    'page=%',
    '%5B=1',
    '[=1',
    ']=1',
    '[]=1',
    'a[=1',
    '__proto__[page]=2',
    'constructor[prototype][x]=1',
    'toString=1',
    'hasOwnProperty=1',
    'page=1&page=2',
    'page=2&page[]=3',
    'pagination=false&page[]=x',
    '&&&',
    '=',
    '==',
    'page=-9223372036854775808',
    'itemsPerPage=-9223372036854775808',
    'page=1.5e10',
    'page=0x10',
    'page=%E2%80%AE1',
    'name=%F0%9F%98%80',
    'name=%C3',
    Array.from({ length: 1500 }, (_, i) => `k${i}=v`).join('&'),
    Array.from({ length: 300 }, () => 'a[]=1').join('&'),
  ];

  const check = async (base: string, path: string): Promise<void> => {
    const r = await request(base, 'GET', path);
    expect(r.status, `${path.slice(0, 120)} → ${r.status} ${r.text.slice(0, 300)}`).to.be.below(500);
    expect([200, 400], `${path.slice(0, 120)} → ${r.status} ${r.text.slice(0, 300)}`).to.include(r.status);
    expect(r.json, `${path.slice(0, 120)}: the body is JSON`).to.not.equal(undefined);
    if (r.status === 400) expect(r.headers.get('content-type')).to.equal(PROBLEM_JSON);
  };

  for (const q of hostile) {
    it(`/dummies?${q.length > 60 ? `${q.slice(0, 60)}… (${q.length} chars)` : q}`, async () => {
      await check(server.url, `/dummies?${q}`);
    });
  }

  for (const q of hostile) {
    it(`cursor /rankings?${q.length > 60 ? `${q.slice(0, 60)}… (${q.length} chars)` : q}`, async () => {
      await check(cursor.url, `/rankings?${q}`);
    });
  }

  const cursorHostile = [
    'score[lt]=abc&id[lt]=3',
    'score[lt]=2&id[lt]=abc',
    'score[lt]=2&id[lt][]=3',
    'score[lt][]=2&id[lt]=3',
    'score[lt]=2&id[gt]=3',
    'score[gt]=2&id[lt]=3',
    'score[lt]=2&score[gt]=1&id[lt]=3',
    'score[lt]=&id[lt]=',
    'score[lt]=1e400&id[lt]=1',
    'score[lt]=9999999999999999999999&id[lt]=9999999999999999999999',
    'order[score]=asc&score[lt]=2&id[lt]=3',
    'order[score]=nope&score[lt]=2&id[lt]=3',
    'itemsPerPage=0&score[lt]=2&id[lt]=3',
    'itemsPerPage=-1',
    'itemsPerPage=1000000',
  ];
  for (const q of cursorHostile) {
    it(`cursor bounds: /rankings?${q}`, async () => {
      await check(cursor.url, `/rankings?${q}`);
    });
  }

  const momentHostile = [
    'at[gt]=not-a-date&id[gt]=1',
    'at[gt]=2024-13-45T99:99:99%2B00:00&id[gt]=1',
    'at[gt]=2024-01-03T12:00:00%2B00:00&id[gt]=x',
    'at[gt]=&id[gt]=',
    'at[gt][]=2024-01-03&id[gt]=1',
    'at[lt]=99999-01-01T00:00:00Z&id[lt]=1',
    'order[at]=desc&at[lt]=0000-00-00&id[lt]=1',
  ];
  for (const q of momentHostile) {
    it(`datetime cursor bounds: /moments?${q}`, async () => {
      await check(cursor.url, `/moments?${q}`);
    });
  }

  it('a request line of ~14 KB (under Node’s default header limit) still gets an answer below 500', async () => {
    await check(server.url, `/dummies?name=${'y'.repeat(14_000)}`);
  });
});
