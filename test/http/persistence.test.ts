/**
 * Storage across restarts (docs/cli.md): `--data DIR` keeps the data, `--memory`
 * starts empty every time; SIGTERM stops the server with exit code 0.
 */
import { expect } from 'chai';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bookstore, request, startServer, tempDir } from './harness.js';

describe('HTTP persistence: --data DIR survives a restart', function () {
  this.timeout(40_000); // each test starts and stops its own server
  const dir = tempDir('apidsl-data-');
  const other = tempDir('apidsl-data-other-');
  let created: unknown;
  after(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(other, { recursive: true, force: true });
  });

  it('POST a book, then stop with SIGTERM: exit code 0', async () => {
    const server = await startServer(bookstore(), ['--data', dir]);
    try {
      const r = await request(server.url, 'POST', '/books', { body: { title: 'Kept', author: 'Disk', price: 3.5 } });
      expect(r.status, r.text).to.equal(201);
      expect(r.json['@id']).to.equal('/books/1');
      const g = await request(server.url, 'GET', '/books/1');
      expect(g.status).to.equal(200);
      created = g.json;
    } finally {
      const code = await server.stop();
      expect(code, server.output()).to.equal(0);
    }
  });

  it('a new server on the same directory answers GET /books/1 with the same document', async () => {
    expect(created, 'the first test did not store a book').to.not.equal(undefined);
    const server = await startServer(bookstore(), ['--data', dir]);
    try {
      const g = await request(server.url, 'GET', '/books/1');
      expect(g.status, g.text).to.equal(200);
      expect(g.json).to.deep.equal(created);
      const list = await request(server.url, 'GET', '/books');
      expect(list.json.totalItems).to.equal(1);
      // The store goes on numbering after the stored items.
      const next = await request(server.url, 'POST', '/books', { body: { title: 'Second' } });
      expect(next.status, next.text).to.equal(201);
      expect(next.json['@id']).to.equal('/books/2');
    } finally {
      expect(await server.stop(), server.output()).to.equal(0);
    }
  });

  it('a server on another directory does not see that data', async () => {
    const server = await startServer(bookstore(), ['--data', other]);
    try {
      expect((await request(server.url, 'GET', '/books/1')).status).to.equal(404);
    } finally {
      await server.stop();
    }
  });
});

describe('HTTP persistence: an edited .api file over the same --data DIR', function () {
  this.timeout(40_000); // two servers, one after the other
  const dir = tempDir('apidsl-data-edited-');
  after(() => rmSync(dir, { recursive: true, force: true }));

  // Collection pages copy member texts rendered when the items were written (docs/behaviour.md): the
  // texts must follow the file, not the file as it was when the items were stored.
  it('shows stored items as the edited file describes them, in collections as in items', async () => {
    const first = await startServer(bookstore(), ['--data', dir]);
    try {
      const r = await request(first.url, 'POST', '/books', { body: { title: 'Kept', author: 'Disk', price: 3.5 } });
      expect(r.status, r.text).to.equal(201);
      expect((await request(first.url, 'GET', '/books')).json.member[0].author).to.equal('Disk');
    } finally {
      expect(await first.stop(), first.output()).to.equal(0);
    }
    const edited = join(dir, 'bookstore.api');
    const source = readFileSync(bookstore(), 'utf8');
    const withWriteOnlyAuthor = source.replace('    author: string\n', '    author: string { writeOnly: true }\n');
    expect(withWriteOnlyAuthor, 'the example changed: update this test').to.not.equal(source);
    writeFileSync(edited, withWriteOnlyAuthor);
    const second = await startServer(edited, ['--data', dir]);
    try {
      const list = await request(second.url, 'GET', '/books');
      expect(list.status, list.text).to.equal(200);
      expect(list.json.member).to.deep.equal([
        { '@id': '/books/1', '@type': 'Book', id: 1, title: 'Kept', price: 3.5 },
      ]);
      const plain = await request(second.url, 'GET', '/books', { headers: { accept: 'application/json' } });
      expect(plain.json).to.deep.equal([{ id: 1, title: 'Kept', price: 3.5 }]);
    } finally {
      expect(await second.stop(), second.output()).to.equal(0);
    }
  });
});

describe('HTTP persistence: --memory starts fresh each time', function () {
  this.timeout(40_000); // two servers, one after the other
  it('a book POSTed to one --memory server is gone after a restart', async () => {
    const first = await startServer(bookstore(), ['--memory']);
    try {
      const r = await request(first.url, 'POST', '/books', { body: { title: 'Volatile' } });
      expect(r.status, r.text).to.equal(201);
      expect((await request(first.url, 'GET', '/books/1')).status).to.equal(200);
    } finally {
      expect(await first.stop(), first.output()).to.equal(0);
    }

    const second = await startServer(bookstore(), ['--memory']);
    try {
      expect((await request(second.url, 'GET', '/books/1')).status).to.equal(404);
      const list = await request(second.url, 'GET', '/books');
      expect(list.status).to.equal(200);
      expect(list.json.totalItems).to.equal(0);
    } finally {
      expect(await second.stop(), second.output()).to.equal(0);
    }
  });
});
