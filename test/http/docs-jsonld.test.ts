/**
 * Our JSON-LD read by an independent processor (the `jsonld` package): the Hydra API
 * documentation `/docs.jsonld`, the entrypoint, collections (plain and `hydra:`-prefixed, with
 * view and search), items and errors are expanded in safe mode — any key or value the processor
 * would drop is an error — with a document loader that fetches our own contexts from the live
 * server and nothing else.
 */
import { expect } from 'chai';
import jsonld from 'jsonld';
import { fromRoot } from '../support/paths.js';
import { bookstore, get, request, startServer, useServer } from './harness.js';

type Any = any;

/** jsonld 9's `expand` returns a promise; its published types still say otherwise. */
const expand = jsonld.expand as unknown as (input: unknown, options: object) => Promise<Any[]>;

const HYDRA = 'http://www.w3.org/ns/hydra/core#';

/** A loader that serves only URLs of `base`, fetched over HTTP, and counts them. */
function loaderFor(base: string, fetched: string[]) {
  return async (url: string) => {
    if (!url.startsWith(`${base}/`)) throw new Error(`the test loader refuses ${url}`);
    const r = await fetch(url, { headers: { Accept: 'application/ld+json' } });
    if (r.status !== 200) throw new Error(`${url} answered ${r.status}`);
    fetched.push(url);
    return { contextUrl: undefined, documentUrl: url, document: await r.json() };
  };
}

async function expandSafe(
  base: string,
  path: string,
  fetched: string[] = [],
  headers: Record<string, string> = {},
): Promise<Any[]> {
  const r = await get(base, path, { Accept: 'application/ld+json', ...headers });
  expect(r.headers.get('content-type') ?? '', path).to.match(/^application\/(ld\+json|problem\+json)/);
  return (await expand(r.json, {
    base: base + path,
    documentLoader: loaderFor(base, fetched) as any,
    safe: true,
  } as any)) as unknown as Any[];
}

/** Every expanded node of a document, recursively. */
function nodes(expanded: Any): Any[] {
  const out: Any[] = [];
  const walk = (v: Any): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      out.push(v);
      Object.values(v).forEach(walk);
    }
  };
  walk(expanded);
  return out;
}

describe('HTTP JSON-LD: expanded by the jsonld processor in safe mode', () => {
  const server = useServer(fromRoot('test/fixtures/filters/filters.api'));
  before(async () => {
    await request(server.url, 'POST', '/authors', { body: { name: 'Frank Herbert' } });
    for (const book of [
      { title: 'Dune', author: '/authors/1', price: 9.5, available: true, publishedAt: '1965-08-01T00:00:00+00:00' },
      { title: 'Messiah', author: '/authors/1', price: 8 },
      { title: 'Children', price: 12 },
    ]) {
      const r = await request(server.url, 'POST', '/books', { body: book });
      expect(r.status, r.text).to.equal(201);
    }
  });

  it('safe mode is on: a document with a key the processor would drop is refused', async () => {
    const lossy = { '@context': { name: 'http://schema.org/name' }, name: 'x', dropped: 'y' };
    let error: Any;
    try {
      await expand(lossy, { safe: true } as Any);
    } catch (e) {
      error = e;
    }
    expect(error?.name).to.equal('jsonld.ValidationError');
  });

  it('/docs.jsonld: the Hydra API documentation', async () => {
    const fetched: string[] = [];
    const expanded = await expandSafe(server.url, '/docs.jsonld', fetched);
    expect(fetched).to.deep.equal([]); // its context is inline
    const docNode = expanded.find((n) => n['@type']?.includes(`${HYDRA}ApiDocumentation`));
    expect(docNode, 'an ApiDocumentation node').to.not.equal(undefined);
    const classes = docNode[`${HYDRA}supportedClass`].map((c: Any) => c['@id']);
    expect(classes).to.include.members([
      `${server.url}/docs.jsonld#Book`,
      `${server.url}/docs.jsonld#Author`,
      `${server.url}/docs.jsonld#Entrypoint`,
    ]);
    const operations = nodes(expanded).filter((n) => n[`${HYDRA}method`]);
    expect(operations.length).to.be.greaterThan(5);
  });

  it('GET /docs with Accept: application/ld+json expands the same', async () => {
    const a = await expandSafe(server.url, '/docs', [], {});
    const b = await expandSafe(server.url, '/docs.jsonld');
    expect(a).to.deep.equal(b);
  });

  it('the entrypoint', async () => {
    const fetched: string[] = [];
    const [entry] = await expandSafe(server.url, '/', fetched);
    expect(fetched).to.deep.equal([`${server.url}/contexts/Entrypoint`]);
    // Not hydra:Entrypoint: the documentation's own class, which it defines (as API Platform).
    expect(entry['@type']).to.deep.equal([`${server.url}/docs.jsonld#Entrypoint`]);
    expect(entry[`${server.url}/docs.jsonld#Entrypoint/book`]).to.deep.equal([{ '@id': `${server.url}/books` }]);
  });

  it('a paginated, filtered collection: members, totalItems, view and search', async () => {
    const fetched: string[] = [];
    const [collection] = await expandSafe(server.url, '/books?itemsPerPage=1&page=2&price[gte]=8&foo=bar', fetched);
    expect(fetched).to.deep.equal([`${server.url}/contexts/Book`]);
    expect(collection['@type']).to.deep.equal([`${HYDRA}Collection`]);
    expect(collection[`${HYDRA}totalItems`]).to.deep.equal([{ '@value': 3 }]);
    expect(collection[`${HYDRA}member`]).to.have.lengthOf(1);
    const member = collection[`${HYDRA}member`][0];
    expect(member['@id']).to.equal(`${server.url}/books/2`);
    expect(member[`${server.url}/docs.jsonld#Book/title`]).to.deep.equal([{ '@value': 'Messiah' }]);
    expect(member[`${server.url}/docs.jsonld#Book/author`]).to.deep.equal([{ '@id': `${server.url}/authors/1` }]);
    const view = collection[`${HYDRA}view`][0];
    expect(view[`${HYDRA}next`][0]['@id']).to.equal(
      `${server.url}/books?foo=bar&itemsPerPage=1&price%5Bgte%5D=8&page=3`,
    );
    if (collection[`${HYDRA}search`]) {
      const search = collection[`${HYDRA}search`][0];
      expect(search['@type']).to.deep.equal([`${HYDRA}IriTemplate`]);
      expect(search[`${HYDRA}mapping`].length).to.be.greaterThan(10);
    }
  });

  it('an unpaginated (streamed) collection', async () => {
    const [collection] = await expandSafe(server.url, '/books?pagination=false');
    expect(collection[`${HYDRA}member`]).to.have.lengthOf(3);
  });

  it('a QUERY answer', async () => {
    const r = await request(server.url, 'QUERY', '/books', {
      body: JSON.stringify({ author: 1 }),
      headers: { 'Content-Type': 'application/json', Accept: 'application/ld+json' },
    });
    const [collection] = (await expand(r.json, {
      base: `${server.url}/books`,
      documentLoader: loaderFor(server.url, []) as Any,
      safe: true,
    } as Any)) as unknown as Any[];
    expect(collection[`${HYDRA}member`].map((m: Any) => m['@id'])).to.deep.equal([
      `${server.url}/books/1`,
      `${server.url}/books/2`,
    ]);
  });

  it('an item, its types, dates and booleans', async () => {
    const [item] = await expandSafe(server.url, '/books/1');
    expect(item['@id']).to.equal(`${server.url}/books/1`);
    expect(item['@type']).to.deep.equal([`${server.url}/docs.jsonld#Book`]);
    expect(item[`${server.url}/docs.jsonld#Book/available`]).to.deep.equal([{ '@value': true }]);
    expect(item[`${server.url}/docs.jsonld#Book/publishedAt`]).to.deep.equal([
      { '@value': '1965-08-01T00:00:00+00:00' },
    ]);
  });

  it('error documents', async () => {
    const [error] = await expandSafe(server.url, '/books/999');
    expect(error['@type']).to.deep.equal([`${HYDRA}Error`]);
    const invalid = await request(server.url, 'POST', '/books', { body: { price: 1 } });
    expect(invalid.status).to.equal(422);
    const [violation] = (await expand(invalid.json, {
      base: `${server.url}/books`,
      documentLoader: loaderFor(server.url, []) as Any,
      safe: true,
    } as Any)) as unknown as Any[];
    expect(violation['@id']).to.match(/\/validation_errors\//);
  });
});

describe('HTTP JSON-LD: hydra-prefixed collections and the bookstore, in safe mode', () => {
  it('hydra:member, hydra:view… expand to the Hydra vocabulary too', async () => {
    const server = await startServer(fromRoot('test/fixtures/pagination/hydra-prefix.api'));
    try {
      for (let i = 1; i <= 4; i++) await request(server.url, 'POST', '/dummies', { body: { name: `d${i}` } });
      const [collection] = await expandSafe(server.url, '/dummies?page=2');
      expect(collection[`${HYDRA}member`]).to.have.lengthOf(1);
      expect(collection[`${HYDRA}member`][0]['@id']).to.equal(`${server.url}/dummies/4`);
      expect(collection[`${HYDRA}totalItems`]).to.deep.equal([{ '@value': 4 }]);
      const previous = collection[`${HYDRA}view`][0][`${HYDRA}previous`][0];
      // Reported: written `hydra:previous` (a compact IRI, not the context's term `previous`), the
      // link gets no `@type: @id` coercion and expands to a string, not an IRI.
      expect(previous['@id'] ?? previous['@value']).to.match(/\/dummies\?page=1$/);
      await expandSafe(server.url, '/docs.jsonld');
      await expandSafe(server.url, '/dummies/99');
    } finally {
      await server.stop();
    }
  });

  // Reported, not fixed here (server/http/documents.ts): the contexts map `first`, `last`,
  // `previous`, `next` with `@type: @id`, but not their prefixed forms, so under hydra_prefix the
  // view's links expand to plain strings.
  it('under hydra_prefix, hydra:previous (and first, last, next) expand to IRIs', async () => {
    const server = await startServer(fromRoot('test/fixtures/pagination/hydra-prefix.api'));
    try {
      for (let i = 1; i <= 4; i++) await request(server.url, 'POST', '/dummies', { body: { name: `d${i}` } });
      const [collection] = await expandSafe(server.url, '/dummies?page=2');
      expect(collection[`${HYDRA}view`][0][`${HYDRA}previous`]).to.deep.equal([
        { '@id': `${server.url}/dummies?page=1` },
      ]);
    } finally {
      await server.stop();
    }
  });

  it('the bookstore: documentation, entrypoint, every collection', async () => {
    const server = await startServer(bookstore());
    try {
      await request(server.url, 'POST', '/books', { body: { title: 'Dune', price: 9.5 } });
      for (const path of ['/docs.jsonld', '/', '/books', '/books/1', '/events', '/geo/places'])
        await expandSafe(server.url, path);
    } finally {
      await server.stop();
    }
  });
});
