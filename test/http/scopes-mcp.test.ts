/**
 * Row-level scopes on the MCP tools (docs/scopes.md, docs/mcp.md), with the SDK's own client and each user's JWT
 * (fixture scopes-faces.api, Task: each user's tasks, staff see all): a list tool shows only the caller's tasks and
 * its totals and pages agree with them; another user's task is, to a get, update or delete tool, an unknown one
 * (isError 404) and stays as it was; a write that would leave the caller's scope is refused (isError 403).
 */
import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { fixture, useServer } from './harness.js';
import { call, httpClient } from './mcp-helpers.js';
import { bearer, token } from './security-helpers.js';

/** Who owns tasks 1 to 9, in the order they are created. */
const OWNERS = ['ann', 'bob', 'ann', 'ann', 'bob', 'ann', 'bob', 'ann', 'bob'];
const tasksOf = (owner: string): number[] => OWNERS.flatMap((o, i) => (o === owner ? [i + 1] : []));
const ids = (doc: Record<string, unknown>): number[] => (doc.member as { id: number }[]).map((m) => m.id);

describe('row-level scopes on the MCP tools (fixture scopes-faces.api)', function () {
  this.timeout(120_000);
  const server = useServer(fixture('scopes-faces.api'));
  const clients: Record<string, Client> = {};

  before(async () => {
    const users: [string, Record<string, string>][] = [
      ['ann', bearer(await token({ sub: 'ann' }))],
      ['bob', bearer(await token({ sub: 'bob' }))],
      ['sam', bearer(await token({ sub: 'sam', roles: ['ROLE_STAFF'] }))],
      ['anonymous', {}],
    ];
    for (const [name, headers] of users) clients[name] = await httpClient(server.url, headers);
    for (const [i, owner] of OWNERS.entries()) {
      const created = await call(clients[owner]!, 'post_task', { body: { owner, title: `task ${i + 1}` } });
      expect(created.isError, JSON.stringify(created.doc)).to.equal(false);
    }
  });
  after(() => Promise.all(Object.values(clients).map((c) => c.close())));

  /** Every page of a list tool, followed by its `page` argument until `view` names no next page. */
  const walk = async (who: string, tool: string) => {
    const pages: Record<string, unknown>[] = [];
    for (let page = 1; ; page++) {
      const { isError, doc } = await call(clients[who]!, tool, { page });
      expect(isError, JSON.stringify(doc)).to.equal(false);
      pages.push(doc);
      if ((doc.view as { next?: string } | undefined)?.next === undefined) return pages;
      expect(page, 'a next page past the last item in scope').to.be.below(OWNERS.length);
    }
  };

  it("lists only the caller's tasks, its totals and pages agreeing with them", async () => {
    for (const [who, visible] of [
      ['ann', tasksOf('ann')],
      ['bob', tasksOf('bob')],
      ['anonymous', []],
      ['sam', OWNERS.map((_, i) => i + 1)],
    ] as const) {
      const pages = await walk(who, 'get_collection_task');
      expect(pages.flatMap(ids), who).to.deep.equal(visible);
      for (const page of pages) expect(page.totalItems, who).to.equal(visible.length);
      const lastPage = Math.max(1, Math.ceil(visible.length / 2));
      expect(pages).to.have.length(lastPage);
      if (visible.length > 2) expect((pages[0]!.view as { last: string }).last).to.equal(`/tasks?page=${lastPage}`);
      const partial = await walk(who, 'partial_tasks');
      expect(partial.flatMap(ids), `${who}, partial`).to.deep.equal(visible);
    }
  });

  it("answers a get of another user's task as an unknown one (isError 404)", async () => {
    const hidden = await call(clients.ann!, 'get_task', { id: 2 });
    const unknown = await call(clients.ann!, 'get_task', { id: 999 });
    expect(hidden.isError).to.equal(true);
    expect(hidden.doc).to.include({ status: 404 });
    expect(hidden.doc).to.deep.equal(unknown.doc);
    expect((await call(clients.anonymous!, 'get_task', { id: 1 })).doc).to.include({ status: 404 });
    expect((await call(clients.bob!, 'get_task', { id: 2 })).doc).to.include({ id: 2, owner: 'bob' });
  });

  it("refuses to update or delete another user's task, and changes nothing", async () => {
    const before = (await call(clients.sam!, 'get_task', { id: 2 })).doc;
    const patch = await call(clients.ann!, 'patch_task', { id: 2, body: { title: 'mine now' } });
    expect(patch.isError).to.equal(true);
    expect(patch.doc).to.include({ status: 404 });
    const removal = await call(clients.ann!, 'delete_task', { id: 2 });
    expect(removal.isError).to.equal(true);
    expect(removal.doc).to.include({ status: 404 });
    const anonymous = await call(clients.anonymous!, 'delete_task', { id: 1 });
    expect(anonymous.doc).to.include({ status: 404 });
    expect((await call(clients.sam!, 'get_task', { id: 2 })).doc).to.deep.equal(before);
    expect((await call(clients.sam!, 'get_task', { id: 1 })).isError).to.equal(false);
  });

  it("refuses a write that would leave the caller's scope (isError 403), and stores nothing", async () => {
    const giveAway = await call(clients.ann!, 'patch_task', { id: 1, body: { owner: 'bob' } });
    expect(giveAway.isError).to.equal(true);
    expect(giveAway.doc).to.include({ status: 403, detail: 'Access Denied.' });
    const forged = await call(clients.ann!, 'post_task', { body: { owner: 'bob', title: 'forged' } });
    expect(forged.doc).to.include({ status: 403 });
    const all = await call(clients.sam!, 'get_collection_task');
    expect(all.doc.totalItems).to.equal(OWNERS.length);
    expect((await call(clients.sam!, 'get_task', { id: 1 })).doc).to.include({ owner: 'ann' });
    // Inside the scope, the same tools write.
    const own = await call(clients.ann!, 'patch_task', { id: 1, body: { title: 'renamed' } });
    expect(own.doc).to.include({ id: 1, title: 'renamed' });
    expect((await call(clients.bob!, 'delete_task', { id: 9 })).isError).to.equal(false);
    expect((await call(clients.bob!, 'get_collection_task')).doc.totalItems).to.equal(tasksOf('bob').length - 1);
  });
});
