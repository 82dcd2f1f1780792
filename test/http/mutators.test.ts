/**
 * Metadata mutators (docs/language.md): a resource mutator
 * and an operation mutator selected by name change what is served; a mutator reference to a
 * missing export or to a non-function makes `serve` refuse to start.
 */
import { expect } from 'chai';
import { fixture, request, serveExpectingExit, useServer } from './harness.js';

describe('HTTP mutators (fixture mutators.api)', () => {
  const server = useServer(fixture('mutators.api'));
  before(async () => {
    for (let i = 1; i <= 5; i++) {
      const r = await request(server.url, 'POST', '/books', { body: { title: `Book ${i}` } });
      if (r.status !== 201) throw new Error(`POST /books answered ${r.status}: ${r.text}`);
    }
    for (const path of ['/shelves', '/crates', '/boxes']) {
      for (let i = 1; i <= 3; i++) {
        const r = await request(server.url, 'POST', path, { body: { label: `Label ${i}` } });
        if (r.status !== 201) throw new Error(`POST ${path} answered ${r.status}: ${r.text}`);
      }
    }
  });

  it('the operation mutator sets 2 items per page on listBooks', async () => {
    const r = await request(server.url, 'GET', '/books');
    expect(r.status).to.equal(200);
    expect(r.json.totalItems).to.equal(5);
    expect(r.json.member.map((m: { '@id': string }) => m['@id'])).to.deep.equal(['/books/1', '/books/2']);
    expect(r.json.view).to.deep.equal({
      '@id': '/books?page=1',
      '@type': 'PartialCollectionView',
      first: '/books?page=1',
      last: '/books?page=3',
      next: '/books?page=2',
    });
  });

  it('the last page holds the fifth book', async () => {
    const r = await request(server.url, 'GET', '/books?page=3');
    expect(r.json.member.map((m: { '@id': string }) => m['@id'])).to.deep.equal(['/books/5']);
  });

  it('name: an operation named by the option is the one an operation mutator selects', async () => {
    const r = await request(server.url, 'GET', '/boxes');
    expect(r.status, r.text).to.equal(200);
    expect(r.json.totalItems).to.equal(3);
    expect(r.json.member.map((m: { '@id': string }) => m['@id'])).to.deep.equal(['/boxes/1', '/boxes/2']);
  });

  it('other collections keep the default page size', async () => {
    const r = await request(server.url, 'GET', '/shelves');
    expect(r.status).to.equal(200);
    expect(r.json.totalItems).to.equal(3);
    expect(r.json.member).to.have.lengthOf(3);
    expect(r.json).to.not.have.property('view');
  });

  it('a resource mutator can set a resource option: 1 crate per page', async () => {
    const r = await request(server.url, 'GET', '/crates?page=2');
    expect(r.status).to.equal(200);
    expect(r.json.totalItems).to.equal(3);
    expect(r.json.member.map((m: { '@id': string }) => m['@id'])).to.deep.equal(['/crates/2']);
    expect(r.json.view.last).to.equal('/crates?page=3');
  });

  it("the resource mutator's description is the one documented (Hydra API documentation)", async () => {
    const r = await request(server.url, 'GET', '/docs.jsonld');
    expect(r.status).to.equal(200);
    const classes = r.json.supportedClass as { '@id': string; description?: string }[];
    expect(classes, 'supportedClass').to.be.an('array');
    const book = classes.find((c) => c['@id'] === '#Book');
    expect(book, 'class #Book').to.not.equal(undefined);
    expect(book!.description).to.equal('Book: Books of the shelf. (mutated)');
  });
});

describe('HTTP mutators: broken references make serve refuse to start', function () {
  this.timeout(40_000);

  it('a missing export: exit code 1, the file and the export named, no URL', async () => {
    const r = await serveExpectingExit(fixture('mutators-missing-export.api'));
    expect(r.url, `the server started: ${r.output}`).to.equal(undefined);
    expect(r.code, r.output).to.equal(1);
    expect(r.output).to.include('mutators.mjs');
    expect(r.output).to.include('noSuchMutator');
  });

  it('an export that is not a function: exit code 1, the file and the export named, no URL', async () => {
    const r = await serveExpectingExit(fixture('mutators-not-function.api'));
    expect(r.url, `the server started: ${r.output}`).to.equal(undefined);
    expect(r.code, r.output).to.equal(1);
    expect(r.output).to.include('mutators.mjs');
    expect(r.output).to.include('notAFunction');
  });
});
