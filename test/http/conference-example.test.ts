/**
 * examples/conference.api served as a newcomer would serve it, its features together as a programme uses them
 * (on the embedded store, and on MongoDB with APIDSL_TEST_STORE=mongodb): a talk posted with its speaker and the
 * speaker's organisation as nested documents, read back with them embedded, on its page too; the speaker changed
 * through the talk, its update time stamped by the server; strict bodies; and the constraints of the three resources
 * refused in one 422 with nothing written.
 */
import { expect } from 'chai';
import { fromRoot } from '../support/paths.js';
import { get, PROBLEM_JSON, request, useServer } from './harness.js';

const MERGE = { 'Content-Type': 'application/merge-patch+json' };

describe('examples/conference.api: embedded relations, nested writes, server values, strict bodies, constraints', function () {
  this.timeout(60_000);
  const server = useServer(fromRoot('examples/conference.api'), ['--memory']);
  const send = (method: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
    request(server.url, method, path, { body, headers });
  const total = async (path: string): Promise<number> => (await get(server.url, path)).json.totalItems as number;

  const talk = {
    title: 'Graphs at scale',
    minutes: 45,
    tags: ['data', 'graphs'],
    speaker: { name: 'Ada', email: 'ada@example.com', organisation: { name: 'ACME', website: 'https://acme.test' } },
  };
  let created: Record<string, any>;

  before(async () => {
    const r = await send('POST', '/talks', talk);
    expect(r.status, r.text).to.equal(201);
    created = r.json;
  });

  it('creates the speaker and the organisation with the talk, and answers with them embedded', () => {
    expect(created.speaker).to.deep.include({ '@type': 'Speaker', name: 'Ada' });
    expect(created.speaker.organisation).to.deep.include({ '@type': 'Organisation', name: 'ACME' });
    // The e-mail is writable through the talk but not in its read group.
    expect(created.speaker).to.not.have.property('email');
    expect(Date.parse(created.createdAt)).to.be.closeTo(Date.now(), 60_000);
  });

  it('shows the talk page with each speaker embedded, and the speaker on its own with IRIs', async () => {
    const page = await get(server.url, '/talks');
    expect(page.json.member).to.have.length(1);
    expect(page.json.member[0].speaker).to.deep.equal(created.speaker);
    const speaker = await get(server.url, created.speaker['@id']);
    expect(speaker.json).to.include({ name: 'Ada', email: 'ada@example.com' });
    expect(speaker.json.organisation).to.equal(created.speaker.organisation['@id']);
    expect(speaker.json.createdAt).to.equal(created.createdAt);
  });

  it('changes the speaker through the talk: the new name embedded, its update time stamped anew', async () => {
    const before = (await get(server.url, created.speaker['@id'])).json.updatedAt as string;
    await new Promise((resolve) => setTimeout(resolve, 20));
    const r = await send(
      'PATCH',
      created['@id'],
      { speaker: { '@id': created.speaker['@id'], name: 'Ada L.' } },
      MERGE,
    );
    expect(r.status, r.text).to.equal(200);
    expect(r.json.speaker.name).to.equal('Ada L.');
    const speaker = (await get(server.url, created.speaker['@id'])).json;
    expect(speaker.name).to.equal('Ada L.');
    expect(Date.parse(speaker.updatedAt)).to.be.greaterThan(Date.parse(before));
    expect(speaker.createdAt).to.equal(created.createdAt);
  });

  it('refuses an unknown attribute, and a value the server sets, with 400 naming them', async () => {
    const typo = await send('POST', '/talks', { ...talk, tittle: 'typo' });
    expect(typo.status, typo.text).to.equal(400);
    expect(typo.headers.get('content-type')).to.equal(PROBLEM_JSON);
    expect(typo.json.detail).to.equal('Extra attributes are not allowed ("tittle" is unknown).');
    const stamped = await send('POST', '/speakers', { name: 'Bob', createdAt: '2020-01-01T00:00:00Z' });
    expect(stamped.status, stamped.text).to.equal(400);
    expect(stamped.json.detail).to.equal('Extra attributes are not allowed ("createdAt" is unknown).');
  });

  it('refuses what the constraints forbid, at every level, in one 422, and writes nothing', async () => {
    const counts = [await total('/talks'), await total('/speakers'), await total('/organisations')];
    const r = await send('POST', '/talks', {
      title: 'Bad',
      minutes: 7,
      tags: ['a', 'a'],
      speaker: { name: 'Eve', email: 'eve-at-example', organisation: { name: 'Org', website: 'ftp://org.test' } },
    });
    expect(r.status, r.text).to.equal(422);
    expect(
      r.json.violations.map((v: { propertyPath: string; message: string }) => [v.propertyPath, v.message]),
    ).to.deep.equal([
      ['minutes', 'This value should be a multiple of 5.'],
      ['tags', 'This collection should contain only unique elements.'],
      ['speaker.email', 'This value is not a valid email address.'],
      ['speaker.organisation.website', 'This value is not a valid URL.'],
    ]);
    expect([await total('/talks'), await total('/speakers'), await total('/organisations')]).to.deep.equal(counts);
  });
});
