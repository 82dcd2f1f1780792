/**
 * `apidsl serve --db` when MongoDB goes away and comes back: requests answer 503 problem+json with
 * Retry-After while it is down (a write is never answered 2xx without acknowledgment), and the service
 * recovers by itself once the server is back, without a restart. The test stops and restarts its own server.
 */
import { expect } from 'chai';
import { bookstore, PROBLEM_JSON, request, startServer, type RunningServer } from '../../http/harness.js';
import { type LocalServer, ownLocalServerOrSkip, startLocalServer, withDatabase } from '../../support/mongodb.js';

describe('MongoDB store: losing the server while serving', function () {
  this.timeout(120_000);
  let mongo: LocalServer | undefined;
  let api: RunningServer | undefined;

  before(async function () {
    mongo = await ownLocalServerOrSkip(this, 'outage');
    api = await startServer(bookstore(), ['--db', withDatabase(mongo.uri, 'outage')]);
  });
  after(async () => {
    await api?.stop();
    await mongo?.stop();
  });

  it('answers 503 with Retry-After while MongoDB is down, and recovers when it is back', async () => {
    const created = await request(api!.url, 'POST', '/books', { body: { title: 'Before', price: 1 } });
    expect(created.status, created.text).to.equal(201);

    await mongo!.stop();
    const read = await request(api!.url, 'GET', '/books/1');
    expect(read.status, read.text).to.equal(503);
    expect(read.headers.get('retry-after')).to.match(/^\d+$/);
    expect(read.headers.get('content-type')).to.equal(PROBLEM_JSON);
    expect(read.json.status).to.equal(503);
    const list = await request(api!.url, 'GET', '/books');
    expect(list.status, list.text).to.equal(503);
    const write = await request(api!.url, 'POST', '/books', { body: { title: 'During' } });
    expect(write.status, write.text).to.equal(503);
    expect(write.headers.get('retry-after')).to.match(/^\d+$/);

    mongo = await startLocalServer({
      kind: mongo!.kind === 'mongod' ? 'mongod' : 'ferretdb',
      port: mongo!.port,
      dir: mongo!.dir,
    });
    let back = await request(api!.url, 'GET', '/books/1');
    for (let i = 0; i < 40 && back.status === 503; i++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      back = await request(api!.url, 'GET', '/books/1');
    }
    expect(back.status, back.text).to.equal(200);
    expect(back.json.title).to.equal('Before');
    const after = await request(api!.url, 'POST', '/books', { body: { title: 'After' } });
    expect(after.status, after.text).to.equal(201);
    expect(after.json['@id']).to.equal('/books/2');
    const all = await request(api!.url, 'GET', '/books');
    expect(all.json.totalItems).to.equal(2);
    expect(api!.output()).to.not.match(/exited/);
  });
});
