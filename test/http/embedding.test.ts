/**
 * Embedded relations on output over real HTTP (docs/behaviour.md, "Embedded relations"): an operation whose
 * normalization groups name a group of some property of a relation's target shows the related objects (their
 * `@id`, `@type` and the properties in those groups) instead of their IRIs, level by level, in items, pages,
 * streamed collections and write responses, in JSON-LD and JSON; property `security` of the target applies; a
 * cycle and `maxDepth` stop the nesting; the response cache drops a page when an item it embeds changes; the
 * OpenAPI schemas describe the served shapes. On the store of the run (memory or MongoDB) and on the embedded
 * store with its stored member texts, which an embedding operation must not serve.
 */
import { expect } from 'chai';
import { fixture, get, request, tempDir, useServer } from './harness.js';
import { ResponseChecker, responsePointer } from '../openapi/validators.js';
import { subscribe } from './sse-client.js';

const MERGE_PATCH = { 'Content-Type': 'application/merge-patch+json' };
const JSON_ACCEPT = { Accept: 'application/json' };
const LD = 'application/ld+json';

const acme = (name = 'ACME') => ({ '@id': '/organisations/1', '@type': 'Organisation', name });
const ada = (name = 'Ada', organisation = acme()) => ({
  '@id': '/speakers/1',
  '@type': 'Speaker',
  name,
  email: 'ada@example.com',
  organisation,
});
// Bob does not share his email: its `security` denies, on the embedded object too. Nobody's phone is shown: its
// `security` fails (fixture), and a failing expression denies.
const bob = { '@id': '/speakers/2', '@type': 'Speaker', name: 'Bob' };
const talk1 = (speaker = ada()) => ({
  '@id': '/talks/1',
  '@type': 'Talk',
  title: 'Embedding',
  speaker,
  reviewers: [bob, speaker],
});
const talk2 = { '@id': '/talks/2', '@type': 'Talk', title: 'Alone', speaker: bob };

/** The plain JSON of a JSON-LD value: no `@id`, `@type` at any level. */
function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plain);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => !k.startsWith('@'))
      .map(([k, v]) => [k, plain(v)]),
  );
}

for (const storage of [[], ['--data', 'DIR']]) {
  describe(`HTTP embedded relations (${storage[0] ?? 'store of the run'})`, () => {
    const server = useServer(fixture('embedding.api'), () => storage.map((a) => (a === 'DIR' ? tempDir() : a)));
    const post = async (path: string, body: unknown) => {
      const r = await request(server.url, 'POST', path, { body });
      expect(r.status, r.text).to.equal(201);
      return r.json;
    };

    before(async () => {
      await post('/organisations', { name: 'ACME', country: 'FR' });
      const speaker = { name: 'Ada', email: 'ada@example.com', shareEmail: true, secret: 's', phone: '+33 1' };
      await post('/speakers', { ...speaker, organisation: '/organisations/1', bio: 'b' });
      await post('/speakers', { name: 'Bob', email: 'bob@example.com', shareEmail: false, phone: '+44 2' });
    });

    it('POST answers with the related objects of the groups, to-one and to-many (in the stored order), nested', async () => {
      const created = await post('/talks', {
        title: 'Embedding',
        speaker: '/speakers/1',
        reviewers: ['/speakers/2', '/speakers/1'],
        room: 'A',
      });
      expect(created).to.deep.equal({ '@context': '/contexts/Talk', ...talk1() });
      expect(await post('/talks', { title: 'Alone', speaker: '/speakers/2' })).to.deep.equal({
        '@context': '/contexts/Talk',
        ...talk2,
      });
    });

    it('GET item in JSON-LD and in JSON (properties only at every level)', async () => {
      const ld = await get(server.url, '/talks/1');
      expect(ld.json).to.deep.equal({ '@context': '/contexts/Talk', ...talk1() });
      const json = await get(server.url, '/talks/1', JSON_ACCEPT);
      expect(json.json).to.deep.equal(plain(talk1()));
    });

    it("collection pages, paginated or streamed, JSON-LD and JSON, embed each member's related items", async () => {
      for (const path of ['/talks', '/talks/streamed']) {
        for (let i = 0; i < 2; i++) {
          const ld = await get(server.url, path);
          expect(ld.status, ld.text).to.equal(200);
          expect(ld.json.member, path).to.deep.equal([talk1(), talk2]);
          expect(ld.json.totalItems).to.equal(2);
          const json = await get(server.url, path, JSON_ACCEPT);
          expect(json.json, path).to.deep.equal(plain([talk1(), talk2]));
        }
      }
    });

    it('a page whose members show every property is not served from stored member texts when it embeds', async () => {
      await post('/sessions', { speaker: '/speakers/2' });
      for (let i = 0; i < 2; i++) {
        const page = await get(server.url, '/sessions');
        expect(page.json.member).to.deep.equal([{ '@id': '/sessions/1', '@type': 'Session', id: 1, speaker: bob }]);
        expect((await get(server.url, '/sessions', JSON_ACCEPT)).json).to.deep.equal([{ id: 1, speaker: plain(bob) }]);
      }
    });

    it('an operation whose groups name no property of the targets ("*") shows IRIs', async () => {
      const item = await get(server.url, '/talks/1/iris');
      expect(item.json).to.include({ speaker: '/speakers/1', room: 'A' });
      expect(item.json.reviewers).to.deep.equal(['/speakers/2', '/speakers/1']);
      const page = await get(server.url, '/talks/all', JSON_ACCEPT);
      expect(page.json[0]).to.include({ speaker: '/speakers/1', title: 'Embedding' });
    });

    it('PATCH and PUT answer with the embedded objects too', async () => {
      const patched = await request(server.url, 'PATCH', '/talks/2', {
        headers: MERGE_PATCH,
        body: { reviewers: ['/speakers/1'] },
      });
      expect(patched.status, patched.text).to.equal(200);
      expect(patched.json.reviewers).to.deep.equal([ada()]);
      const put = await request(server.url, 'PUT', '/talks/2', {
        body: { title: 'Alone', speaker: '/speakers/2', reviewers: ['/speakers/2'] },
      });
      expect(put.status, put.text).to.equal(200);
      expect(put.json).to.deep.equal({ '@context': '/contexts/Talk', ...talk2, reviewers: [bob] });
      const back = await request(server.url, 'PATCH', '/talks/2', { headers: MERGE_PATCH, body: { reviewers: null } });
      expect(back.json).to.deep.equal({ '@context': '/contexts/Talk', ...talk2 });
    });

    it('the response cache drops a page when an item it embeds changes, at any level; Cache-Tags list them', async () => {
      const before = await get(server.url, '/talks');
      expect(before.json.member[0].speaker.name).to.equal('Ada');
      const tags = (before.headers.get('cache-tags') ?? '').split(',');
      expect(tags).to.include.members(['/speakers/1', '/speakers/2', '/organisations/1']);
      await get(server.url, '/talks/1'); // kept in the cache
      const renamed = await request(server.url, 'PATCH', '/speakers/1', {
        headers: MERGE_PATCH,
        body: { name: 'Ada L.' },
      });
      expect(renamed.status, renamed.text).to.equal(200);
      expect((await get(server.url, '/talks')).json.member[0].speaker.name).to.equal('Ada L.');
      expect((await get(server.url, '/talks/1')).json.speaker.name).to.equal('Ada L.');
      const moved = await request(server.url, 'PATCH', '/organisations/1', {
        headers: MERGE_PATCH,
        body: { name: 'ACME Corp' },
      });
      expect(moved.status, moved.text).to.equal(200);
      expect((await get(server.url, '/talks/1')).json).to.deep.equal({
        '@context': '/contexts/Talk',
        ...talk1(ada('Ada L.', acme('ACME Corp'))),
      });
      expect((await get(server.url, '/talks/streamed')).json.member[0].speaker.organisation.name).to.equal('ACME Corp');
    });

    it('a cycle shows an item already on the path as its IRI; maxDepth (enable_max_depth) leaves the relation out', async () => {
      // A(4) → mentor B(3) → mentor C(2) → mentor D(1); A and B are friends.
      await post('/people', { name: 'D' });
      await post('/people', { name: 'C', mentor: '/people/1' });
      await post('/people', { name: 'B', mentor: '/people/2' });
      await post('/people', { name: 'A', mentor: '/people/3', friends: ['/people/3'] });
      const r = await request(server.url, 'PATCH', '/people/3', {
        headers: MERGE_PATCH,
        body: { friends: ['/people/4'] },
      });
      expect(r.status, r.text).to.equal(200);
      const person = (id: number, name: string, rest: Record<string, unknown> = {}) => ({
        '@id': `/people/${id}`,
        '@type': 'Person',
        name,
        ...rest,
      });
      const d = person(1, 'D');
      // mentor has maxDepth 2: Person::mentor met a third time on a path is left out. The friends' path met
      // Person::mentor once less than the mentor's (A's friends come before its mentor).
      const a = await get(server.url, '/people/4');
      expect(a.json).to.deep.equal({
        '@context': '/contexts/Person',
        ...person(4, 'A', {
          friends: [person(3, 'B', { friends: ['/people/4'], mentor: person(2, 'C', { mentor: d }) })],
          mentor: person(3, 'B', { friends: ['/people/4'], mentor: person(2, 'C') }),
        }),
      });
      // Without enable_max_depth, maxDepth has no effect.
      const unbounded = await get(server.url, '/people/4/unbounded');
      expect(unbounded.json.mentor).to.deep.equal(
        person(3, 'B', { friends: ['/people/4'], mentor: person(2, 'C', { mentor: d }) }),
      );
    });

    it('nothing is embedded deeper than 8 levels: the relation of the eighth embedded object is an IRI', async () => {
      let previous: string | undefined;
      for (let i = 0; i < 10; i++) previous = (await post('/people', { name: `L${i}`, mentor: previous }))['@id'];
      let level = (await get(server.url, `${previous}/unbounded`)).json;
      for (let depth = 1; depth <= 8; depth++) {
        level = level.mentor;
        expect(level, `level ${depth}`).to.be.an('object');
      }
      expect(level.mentor)
        .to.be.a('string')
        .and.match(/^\/people\/\d+$/);
    });

    it('Mercure publishes each saved talk as its Get shows it, embedded objects included, in order', async () => {
      const s = subscribe(`${server.url}/.well-known/mercure`, ['/talks/{id}']);
      try {
        await s.opened;
        const created = await post('/talks', { title: 'Live', speaker: '/speakers/1', reviewers: ['/speakers/2'] });
        for (const title of ['Live 2', 'Live 3']) {
          const r = await request(server.url, 'PATCH', created['@id'], { headers: MERGE_PATCH, body: { title } });
          expect(r.status, r.text).to.equal(200);
        }
        const events = (await s.waitFor(3)).map((e) => JSON.parse(e.data));
        expect(events.map((e) => e.title)).to.deep.equal(['Live', 'Live 2', 'Live 3']);
        // Subscribers are not the writer: a guarded property of an embedded item is never published (fail closed).
        const shown = (await get(server.url, created['@id'])).json;
        const { email, ...speaker } = shown.speaker;
        expect(email).to.equal('ada@example.com');
        expect(events[2]).to.deep.equal({ ...shown, speaker });
        expect(events[0].reviewers).to.deep.equal([bob]);
      } finally {
        s.close();
      }
    });

    it('Hydra: an embedded relation is an rdf:Property with the target class as range, an IRI relation a Link', async () => {
      const doc = (await get(server.url, '/docs.jsonld')).json;
      const property = (cls: string, name: string) =>
        doc.supportedClass
          .find((c: { '@id': string }) => c['@id'] === `#${cls}`)
          .supportedProperty.find((p: { title: string }) => p.title === name).property;
      expect(property('Talk', 'speaker')).to.include({ '@type': 'rdf:Property', range: '#Speaker' });
      expect(property('Talk', 'reviewers')).to.include({ '@type': 'rdf:Property', range: '#Speaker' });
      // Speaker's own operations show its organisation as an IRI.
      expect(property('Speaker', 'organisation')).to.include({ '@type': 'Link', range: '#Organisation' });
    });

    it("OpenAPI: the embedded relation refers to the target's schema of the same groups; responses match it", async () => {
      const doc = (await get(server.url, '/docs.json')).json;
      const schemas = doc.components.schemas;
      // API Platform's names: the target's shortName and the operation's groups.
      const embeddedSchemas = ['Speaker', 'Organisation'].flatMap((name) => [
        `${name}-talk_read`,
        `${name}.jsonld-talk_read`,
      ]);
      expect(Object.keys(schemas)).to.include.members(['Talk-talk_read', 'Talk.jsonld-talk_read', ...embeddedSchemas]);
      // email's `security` reads the item: the documentation, read by no item, leaves it out (as for the top level).
      expect(Object.keys(schemas['Speaker-talk_read'].properties)).to.have.members(['name', 'organisation']);
      expect(schemas['Talk-talk_read'].properties.reviewers.items.anyOf[0]).to.deep.equal({
        $ref: '#/components/schemas/Speaker-talk_read',
      });
      const checker = new ResponseChecker(doc);
      for (const [path, accept] of [
        ['/talks/{id}', LD],
        ['/talks/{id}', 'application/json'],
      ]) {
        const item = (await get(server.url, '/talks/1', { Accept: accept })).json;
        expect(checker.check(responsePointer(path, 'get', 200, accept), item), `${path} ${accept}`).to.equal(undefined);
      }
      for (const accept of [LD, 'application/json']) {
        const page = (await get(server.url, '/talks', { Accept: accept })).json;
        expect(checker.check(responsePointer('/talks', 'get', 200, accept), page), accept).to.equal(undefined);
      }
      const people = (await get(server.url, '/people/4')).json;
      expect(checker.check(responsePointer('/people/{id}', 'get', 200, LD), people)).to.equal(undefined);
      // An IRI where the nesting stops (a cycle, the bound) is accepted too; a wrong shape is not.
      const wrong = { ...(await get(server.url, '/talks/1')).json, speaker: { name: 1 } };
      expect(checker.check(responsePointer('/talks/{id}', 'get', 200, LD), wrong)).to.not.equal(undefined);
    });
  });
}
