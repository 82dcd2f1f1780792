/**
 * Nested documents on write (docs/behaviour.md, "Nested documents on write"), over real HTTP on the embedded
 * store (and on MongoDB with APIDSL_TEST_STORE=mongodb): where the operation's denormalization groups include
 * properties of a relation's target, a nested object creates a related item (no `@id`) or changes the stored one
 * (`@id`; plain JSON: `id`), at any level up to the bound, validated with the parent in one 422, written with the
 * parent all or nothing and published; elsewhere it is refused as API Platform refuses it. The OpenAPI input
 * schemas describe the nested shape.
 */
import { expect } from 'chai';
import { fixture, PROBLEM_JSON, request, tempDir, useServer, type HttpResponse } from './harness.js';
import { subscribe } from './sse-client.js';
import { ResponseChecker, seriousme } from '../openapi/validators.js';

const MERGE = { 'Content-Type': 'application/merge-patch+json' };
const PLAIN = { 'Content-Type': 'application/json', Accept: 'application/json' };

// `--memory` is MongoDB under APIDSL_TEST_STORE=mongodb (harness.ts): the compensating writes; `--data` SQLite's transaction.
for (const storage of [['--memory'], ['--data', 'DIR']])
  describe(`HTTP nested documents on write (${storage[0]})`, function () {
    this.timeout(30_000);
    before(() => {
      process.env.MERCURE_SUBSCRIBER_JWT_KEY = 'subscriber-key-for-tests-0123456789';
      process.env.MERCURE_PUBLISHER_JWT_KEY = 'publisher-key-for-tests-0123456789';
    });
    after(() => {
      delete process.env.MERCURE_SUBSCRIBER_JWT_KEY;
      delete process.env.MERCURE_PUBLISHER_JWT_KEY;
    });
    const server = useServer(fixture('nested-writes.api'), () => storage.map((a) => (a === 'DIR' ? tempDir() : a)));

    const send = (method: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
      request(server.url, method, path, { body, headers });
    const read = async (path: string): Promise<Record<string, unknown>> => {
      const r = await request(server.url, 'GET', path);
      expect(r.status, r.text).to.equal(200);
      return r.json as Record<string, unknown>;
    };
    const total = async (path: string): Promise<number> => (await read(path)).totalItems as number;
    /** POSTs a talk, expecting 201: its document. */
    const created = async (body: Record<string, unknown>): Promise<Record<string, unknown>> => {
      const r = await send('POST', '/talks', body);
      expect(r.status, r.text).to.equal(201);
      return r.json as Record<string, unknown>;
    };
    const problem = (r: HttpResponse, status: number, detail: string): void => {
      expect(r.status, r.text).to.equal(status);
      expect(r.headers.get('content-type')).to.equal(PROBLEM_JSON);
      expect(r.json.detail).to.equal(detail);
    };

    it('creates the related item from a nested document: the groups’ properties, its defaults, its IRI stored', async () => {
      const talk = await created({
        id: 'create',
        title: 'Graphs',
        speaker: { name: 'Ada', bio: 'not in the groups', rating: 3 },
      });
      const iri = talk.speaker as string;
      expect(iri).to.match(/^\/speakers\/\d+$/);
      const speaker = await read(iri);
      expect(speaker).to.include({ name: 'Ada', level: 'junior' });
      expect(speaker, 'outside the groups').to.not.have.property('bio');
      expect(speaker, 'its write rule denies a junior').to.not.have.property('rating');
      expect((await read('/talks/create')).speaker).to.equal(iri);
    });

    it('applies the target property write rules to the nested item', async () => {
      const talk = await created({
        id: 'rated',
        title: 'Ratings',
        speaker: { name: 'Bea', level: 'senior', rating: 5 },
      });
      expect(await read(talk.speaker as string)).to.include({ name: 'Bea', level: 'senior', rating: 5 });
    });

    it('a denied write rule with throwOnAccessDenied refuses the whole request', async () => {
      const before = await total('/speakers');
      const r = await send('POST', '/talks', { id: 'badge', title: 'B', speaker: { name: 'Lee', badge: 'gold' } });
      expect(r.status, r.text).to.equal(401);
      expect(await total('/speakers')).to.equal(before);
      expect((await request(server.url, 'GET', '/talks/badge')).status).to.equal(404);
    });

    it('writes no item under a relation whose write the parent’s own rule denies', async () => {
      const before = await total('/speakers');
      const talk = await created({
        id: 'locked',
        title: 'Locked',
        speaker: { name: 'Nope', organisation: { name: 'No' } },
      });
      expect(talk).to.not.have.property('speaker');
      expect(await total('/speakers')).to.equal(before);
    });

    it('to-many: nested documents and IRIs side by side, in order', async () => {
      const known = (await send('POST', '/talks', { id: 'seed', title: 'Seed', speaker: { name: 'Cy' } })).json
        .speaker as string;
      const r = await send('POST', '/talks', {
        id: 'many',
        title: 'Panel',
        reviewers: [{ name: 'Dee' }, known, { name: 'Eve' }],
      });
      expect(r.status, r.text).to.equal(201);
      const reviewers = r.json.reviewers as string[];
      expect(reviewers).to.have.length(3);
      expect(reviewers[1]).to.equal(known);
      expect((await read(reviewers[0])).name).to.equal('Dee');
      expect((await read(reviewers[2])).name).to.equal('Eve');
    });

    it('nested levels: a speaker’s organisation and mentor created with it', async () => {
      const r = await send('POST', '/talks', {
        id: 'levels',
        title: 'Deep',
        speaker: {
          name: 'Fay',
          organisation: { name: 'ACME' },
          mentor: { name: 'Gus', organisation: { name: 'Initech' } },
        },
      });
      expect(r.status, r.text).to.equal(201);
      const speaker = await read(r.json.speaker as string);
      expect((await read(speaker.organisation as string)).name).to.equal('ACME');
      const mentor = await read(speaker.mentor as string);
      expect(mentor.name).to.equal('Gus');
      expect((await read(mentor.organisation as string)).name).to.equal('Initech');
    });

    it('refuses nested documents deeper than the bound (400), writing nothing', async () => {
      const before = await total('/speakers');
      let speaker: Record<string, unknown> = { name: 'Deep' };
      for (let i = 0; i < 5; i++) speaker = { name: `M${i}`, mentor: speaker };
      const r = await send('POST', '/talks', { id: 'too-deep', title: 'Deep', speaker });
      problem(
        r,
        400,
        'Nested documents may go 5 levels deep, "speaker.mentor.mentor.mentor.mentor.mentor" is deeper. Use an IRI there.',
      );
      expect(await total('/speakers')).to.equal(before);
    });

    it('updates the stored item an @id names (the given properties only), on POST, PUT and PATCH', async () => {
      const created = await send('POST', '/talks', { id: 'upd', title: 'Upd', speaker: { name: 'Hal', level: 'mid' } });
      const iri = created.json.speaker as string;
      const onPost = await send('POST', '/talks', { id: 'upd2', title: 'Upd2', speaker: { '@id': iri, name: 'Hal2' } });
      expect(onPost.status, onPost.text).to.equal(201);
      expect(onPost.json.speaker).to.equal(iri);
      expect(await read(iri)).to.include({ name: 'Hal2', level: 'mid' });
      const onPut = await send('PUT', '/talks/upd', { title: 'Upd', speaker: { '@id': iri, level: 'senior' } });
      expect(onPut.status, onPut.text).to.equal(200);
      expect(await read(iri)).to.include({ name: 'Hal2', level: 'senior' });
      const onPatch = await send('PATCH', '/talks/upd', { speaker: { '@id': iri, name: 'Hal3' } }, MERGE);
      expect(onPatch.status, onPatch.text).to.equal(200);
      expect(await read(iri)).to.include({ name: 'Hal3', level: 'senior' });
    });

    it('plain JSON names the stored item by `id`: its identifier or its IRI', async () => {
      const iri = (await send('POST', '/talks', { id: 'json', title: 'J', speaker: { name: 'Ivy' } })).json
        .speaker as string;
      const id = Number(iri.split('/').pop());
      const byId = await send('PATCH', '/talks/json', { speaker: { id, name: 'Ivy2' } }, MERGE);
      expect(byId.status, byId.text).to.equal(200);
      expect((await read(iri)).name).to.equal('Ivy2');
      const byIri = await send(
        'POST',
        '/talks',
        { id: 'json2', title: 'J2', speaker: { id: iri, name: 'Ivy3' } },
        PLAIN,
      );
      expect(byIri.status, byIri.text).to.equal(201);
      expect(byIri.json.speaker).to.equal(iri);
      expect((await read(iri)).name).to.equal('Ivy3');
    });

    it('an @id that names no item of the target answers 400 as a bad IRI does', async () => {
      problem(
        await send('POST', '/talks', { id: 'x1', title: 'X', speaker: { '@id': '/speakers/999', name: 'No' } }),
        400,
        'Item not found for "/speakers/999".',
      );
      problem(
        await send('POST', '/talks', { id: 'x2', title: 'X', speaker: { '@id': '/talks/create', name: 'No' } }),
        400,
        'Invalid IRI "/talks/create".',
      );
      expect((await request(server.url, 'GET', '/talks/x1')).status).to.equal(404);
    });

    it('validates the nested items with the parent: one 422, paths under the relation, nothing written', async () => {
      const before = await total('/speakers');
      const r = await send('POST', '/talks', {
        id: 'invalid',
        speaker: { name: 'A name far longer than twenty letters' },
        reviewers: [{ name: 'Ok' }, { level: 'x' }],
      });
      expect(r.status, r.text).to.equal(422);
      expect((r.json.violations as { propertyPath: string }[]).map((v) => v.propertyPath)).to.have.members([
        'title',
        'speaker.name',
        'reviewers[1].name',
      ]);
      expect(await total('/speakers')).to.equal(before);
    });

    it('a type error inside a nested document names its path (collectDenormalizationErrors)', async () => {
      const r = await send('POST', '/collected-talks', {
        id: 'typed',
        title: 'T',
        speaker: { name: 5, mentor: { '@id': '/speakers/999' } },
      });
      expect(r.status, r.text).to.equal(422);
      const paths = (r.json.violations as { propertyPath: string }[]).map((v) => v.propertyPath);
      expect(paths).to.include.members(['speaker.name', 'speaker.mentor']);
    });

    it('all or nothing: a parent write that fails (409) leaves no related item created or changed', async () => {
      const iri = (await send('POST', '/talks', { id: 'taken', title: 'T', speaker: { name: 'Jo' } })).json
        .speaker as string;
      const speakers = await total('/speakers');
      const organisations = await total('/organisations');
      const r = await send('POST', '/talks', {
        id: 'taken',
        title: 'Again',
        speaker: { '@id': iri, name: 'Changed', organisation: { name: 'Orphan' } },
        reviewers: [{ name: 'Orphan too' }],
      });
      expect(r.status, r.text).to.equal(409);
      expect(await total('/speakers')).to.equal(speakers);
      expect(await total('/organisations')).to.equal(organisations);
      const speaker = await read(iri);
      expect(speaker.name).to.equal('Jo');
      expect(speaker).to.not.have.property('organisation');
    });

    it('publishes the related items a nested write stored, each as its own resource', async () => {
      const s = subscribe(`${server.url}/.well-known/mercure`, ['/speakers/{id}', '/talks/{id}'], {}, []);
      try {
        await s.opened;
        const r = await send('POST', '/talks', { id: 'live', title: 'Live', speaker: { name: 'Kim' } });
        expect(r.status, r.text).to.equal(201);
        const events = (await s.waitFor(2)).map((e) => JSON.parse(e.data) as Record<string, unknown>);
        expect(events.map((e) => e['@id'])).to.have.members([r.json.speaker, '/talks/live']);
        expect(events.find((e) => e['@type'] === 'Speaker')).to.include({ name: 'Kim' });
      } finally {
        s.close();
      }
    });

    it('messenger "persist": the related item stored first, the dispatched talk names it by its IRI', async () => {
      const r = await send('POST', '/persisted-talks', { id: 'bus', title: 'Bus', speaker: { name: 'Mo' } });
      expect(r.status, r.text).to.equal(201);
      expect(r.json.speaker).to.match(/^\/speakers\/\d+$/);
      expect((await read('/talks/bus-heard')).title).to.equal(r.json.speaker);
    });

    it('sets the values the server gives a nested item (default: now), as for an item of its own', async () => {
      const before = Date.now();
      const talk = await created({ id: 'stamped', title: 'Stamps', speaker: { name: 'Hopper' } });
      const speaker = await read(talk.speaker as string);
      const joined = Date.parse(speaker.joined as string);
      expect(joined, String(speaker.joined)).to.be.within(before - 1000, Date.now() + 1000);
    });

    it('allow_extra_attributes: false refuses an extra attribute of a nested document, and writes nothing', async () => {
      const speakers = await total('/speakers');
      const r = await send('POST', '/strict-talks', {
        id: 'strict-1',
        title: 'Strict',
        speaker: { name: 'Lovelace', bio: 'outside the groups' },
      });
      problem(r, 400, 'Extra attributes are not allowed ("bio" is unknown).');
      expect(await total('/speakers')).to.equal(speakers);
      expect((await request(server.url, 'GET', '/talks/strict-1')).status).to.equal(404);
    });

    it('allow_extra_attributes: false still takes the `id` a plain JSON nested document names its item by', async () => {
      const talk = await created({ id: 'strict-base', title: 'Base', speaker: { name: 'Knuth' } });
      const id = Number((talk.speaker as string).split('/').pop());
      const r = await send(
        'POST',
        '/strict-talks',
        { id: 'strict-2', title: 'Strict', speaker: { id, level: 'senior' } },
        PLAIN,
      );
      expect(r.status, r.text).to.equal(201);
      expect(await read(talk.speaker as string)).to.include({ name: 'Knuth', level: 'senior' });
    });

    it('refuses a nested document where the groups include no target property, as API Platform does', async () => {
      problem(
        await send('POST', '/plain-talks', { id: 'p1', title: 'P', speaker: { name: 'No' } }),
        400,
        'Nested documents for attribute "speaker" are not allowed. Use IRIs instead.',
      );
      problem(
        await send('POST', '/plain-talks', { id: 'p2', title: 'P', reviewers: [{ name: 'No' }] }),
        400,
        'Nested documents for attribute "reviewers" are not allowed. Use IRIs instead.',
      );
    });

    it('collects the refusal as a violation of the relation under collectDenormalizationErrors', async () => {
      const r = await send('POST', '/collected-plain-talks', { id: 'p3', title: 'P', speaker: { name: 'No' } });
      expect(r.status, r.text).to.equal(422);
      expect(r.json.violations).to.have.length(1);
      expect(r.json.violations[0]).to.include({
        propertyPath: 'speaker',
        hint: 'Nested documents for attribute "speaker" are not allowed. Use IRIs instead.',
      });
    });

    it('refuses nested documents where the default write does not run: a bulk POST, a processor, the bus alone, write: false', async () => {
      problem(
        await send('POST', '/bulk-talks', [{ id: 'b1', title: 'B', speaker: { name: 'No' } }]),
        400,
        'Item [0]: Nested documents cannot be written here (a bulk POST stores its items together). Use IRIs instead.',
      );
      problem(
        await send('POST', '/coded-talks', { id: 'c1', title: 'C', speaker: { name: 'No' } }),
        400,
        'Nested documents cannot be written here (the operation writes through its own code). Use IRIs instead.',
      );
      expect((await send('POST', '/coded-talks', { id: 'c2', title: 'C' })).status, 'IRIs only: written').to.equal(201);
      problem(
        await send('POST', '/dispatched-talks', { id: 'd1', title: 'D', speaker: { name: 'No' } }),
        400,
        'Nested documents cannot be written here (the operation hands its item to the message bus). Use IRIs instead.',
      );
      problem(
        await send('POST', '/kept-talks', { id: 'k1', title: 'K', speaker: { name: 'No' } }),
        400,
        'Nested documents cannot be written here (the operation writes nothing). Use IRIs instead.',
      );
    });

    it('documents a writable link as an IRI or the target’s input schema under the same groups', async () => {
      const doc = (await request(server.url, 'GET', '/docs.json')).json as Record<string, any>;
      const schemas = doc.components.schemas as Record<string, any>;
      const talk = schemas['Talk.input-talk_write'];
      expect(talk.properties.speaker.anyOf).to.deep.include({ $ref: '#/components/schemas/Speaker.input-talk_write' });
      expect(talk.properties.reviewers.items.anyOf).to.deep.include({
        $ref: '#/components/schemas/Speaker.input-talk_write',
      });
      const speaker = schemas['Speaker.input-talk_write'];
      expect(Object.keys(speaker.properties)).to.have.members([
        'name',
        'level',
        'rating',
        'badge',
        'organisation',
        'mentor',
        '@id',
      ]);
      expect(speaker.properties.organisation.anyOf).to.deep.include({
        $ref: '#/components/schemas/Organisation.input-talk_write',
      });
      // The plain operation's relations stay IRIs.
      expect(schemas['Talk.input-talk_plain'].properties.speaker).to.not.have.property('anyOf');
      const verdict = await seriousme(doc);
      expect(verdict.valid, verdict.errors).to.equal(true);
      const checker = new ResponseChecker(doc);
      const pointer = '#/paths/~1talks/post/requestBody/content/application~1ld+json/schema';
      const body = {
        title: 'T',
        speaker: { name: 'Ada', organisation: { name: 'ACME' } },
        reviewers: ['/speakers/1', { '@id': '/speakers/2', level: 'senior' }],
      };
      expect(checker.check(pointer, body)).to.equal(undefined);
      expect(
        checker.check(pointer, { title: 'T', speaker: { level: 'senior' } }),
        'a new speaker needs a name',
      ).to.not.equal(undefined);
      expect(checker.check(pointer, { title: 'T', speaker: 5 })).to.not.equal(undefined);
    });
  });
