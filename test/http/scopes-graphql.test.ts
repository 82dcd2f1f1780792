/**
 * Row-level scopes on GraphQL (docs/scopes.md): its resolvers run the REST pipeline, so a connection's nodes and
 * totalCount, an item query, relation fields and the mutations see only the caller's items; REST embedding writes a
 * related item outside the reader's scope as its IRI (test/fixtures/security/scoped-notes.api).
 */
import { expect } from 'chai';
import { graphql } from './graphql-helpers.js';
import { request, useServer } from './harness.js';
import { bearer, securityFixture, token } from './security-helpers.js';

describe('row-level scopes on GraphQL', function () {
  this.timeout(60_000);
  const server = useServer(securityFixture('scoped-notes.api'));
  let ann: Record<string, string>, bob: Record<string, string>, staff: Record<string, string>;

  const ask = (who: Record<string, string>, query: string) => graphql(server.url, query, {}, who);
  const createAs = (who: Record<string, string>, owner: string, title: string) =>
    ask(who, `mutation { createNote(input: { owner: "${owner}", title: "${title}" }) { note { id } } }`);
  const create = async (who: Record<string, string>, owner: string, title: string): Promise<void> => {
    const answer = await createAs(who, owner, title);
    expect(answer.errors, JSON.stringify(answer.errors)).to.equal(undefined);
  };

  before(async () => {
    ann = bearer(await token({ sub: 'ann' }));
    bob = bearer(await token({ sub: 'bob' }));
    staff = bearer(await token({ sub: 'sam', roles: ['ROLE_STAFF'] }));
    await create(ann, 'ann', 'ann 1'); // /notes/1
    await create(bob, 'bob', 'bob 1'); // /notes/2
    await create(ann, 'ann', 'ann 2'); // /notes/3
    for (const note of ['/notes/1', '/notes/2']) {
      const pin = await request(server.url, 'POST', '/pins', { headers: staff, body: { label: note, note } });
      expect(pin.status, pin.text).to.equal(201);
    }
  });

  it('combines a filter with the scope, on GET and on a QUERY body (REST)', async () => {
    const titles = (r: { json: any }) => r.json.member.map((m: { title: string }) => m.title);
    const get = await request(server.url, 'GET', '/notes?title=1', { headers: bob });
    expect(titles(get)).to.deep.equal(['bob 1']);
    expect(get.json.totalItems).to.equal(1);
    const query = await request(server.url, 'QUERY', '/notes', { headers: ann, body: { title: 'ann' } });
    expect(query.status, query.text).to.equal(200);
    expect(titles(query)).to.deep.equal(['ann 1', 'ann 2']);
    expect(query.json.totalItems).to.equal(2);
  });

  it('pages a partial collection through the scope: no next page past the last item in scope', async () => {
    const first = await request(server.url, 'GET', '/notes/recent', { headers: bob });
    expect(first.json.member.map((m: { title: string }) => m.title)).to.deep.equal(['bob 1']);
    expect(first.json.view?.next).to.equal(undefined);
    const second = await request(server.url, 'GET', '/notes/recent?page=2', { headers: ann });
    expect(second.json.member.map((m: { title: string }) => m.title)).to.deep.equal(['ann 2']);
  });

  it('embeds a related item inside the reader’s scope and leaves one outside it as its IRI (REST)', async () => {
    const pins = await request(server.url, 'GET', '/pins', { headers: ann });
    expect(pins.json.member.map((p: { note: unknown }) => p.note)).to.deep.equal([
      { '@id': '/notes/1', '@type': 'Note', title: 'ann 1' },
      '/notes/2',
    ]);
  });

  it('resolves a relation field outside the reader’s scope to null (GraphQL)', async () => {
    const { data } = await ask(ann, '{ pins { edges { node { label note { title } } } } }');
    expect(data.pins.edges.map((e: any) => e.node.note)).to.deep.equal([{ title: 'ann 1' }, null]);
  });

  it('answers a body naming a note outside the writer’s scope as an unknown IRI', async () => {
    const r = await request(server.url, 'POST', '/pins', { headers: ann, body: { label: 'x', note: '/notes/2' } });
    expect(r.status, r.text).to.equal(400);
    expect(r.json.detail).to.equal('Item not found for "/notes/2".');
  });

  it("lists and counts only the caller's items in a connection", async () => {
    const list = '{ notes { totalCount edges { node { title } } } }';
    const titles = async (who: Record<string, string>) => {
      const { data } = await ask(who, list);
      return { count: data.notes.totalCount, titles: data.notes.edges.map((e: any) => e.node.title) };
    };
    expect(await titles(ann)).to.deep.equal({ count: 2, titles: ['ann 1', 'ann 2'] });
    expect(await titles(bob)).to.deep.equal({ count: 1, titles: ['bob 1'] });
    expect(await titles(staff)).to.deep.equal({ count: 3, titles: ['ann 1', 'bob 1', 'ann 2'] });
  });

  it('answers an item outside the scope as an unknown one', async () => {
    const hidden = await ask(bob, '{ note(id: "/notes/1") { title } }');
    const unknown = await ask(bob, '{ note(id: "/notes/99") { title } }');
    expect(hidden).to.deep.equal(unknown);
    expect((await ask(ann, '{ note(id: "/notes/1") { title } }')).data.note.title).to.equal('ann 1');
  });

  it('finds the target of a mutation through the scope, and refuses a write that leaves it', async () => {
    const update = await ask(
      bob,
      'mutation { updateNote(input: { id: "/notes/1", title: "mine" }) { note { title } } }',
    );
    expect(update.errors?.[0]?.extensions?.status, JSON.stringify(update)).to.equal(404);
    const removal = await ask(bob, 'mutation { deleteNote(input: { id: "/notes/1" }) { note { id } } }');
    expect(removal.errors?.[0]?.extensions?.status, JSON.stringify(removal)).to.equal(404);
    const giveAway = await ask(
      bob,
      'mutation { updateNote(input: { id: "/notes/2", owner: "ann" }) { note { title } } }',
    );
    expect(giveAway.errors?.[0]?.extensions?.status, JSON.stringify(giveAway)).to.equal(403);
    const forged = await createAs(bob, 'ann', 'forged');
    expect(forged.errors?.[0]?.extensions?.status, JSON.stringify(forged)).to.equal(403);
    expect((await ask(staff, '{ notes { totalCount } }')).data.notes.totalCount).to.equal(3);
    expect((await ask(ann, '{ note(id: "/notes/1") { title } }')).data.note.title).to.equal('ann 1');
    expect((await ask(bob, '{ note(id: "/notes/2") { owner } }')).data.note.owner).to.equal('bob');
  });
});
