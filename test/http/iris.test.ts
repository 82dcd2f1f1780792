/**
 * IRIs and routes (docs/behaviour.md, "Operations and routes"): routePrefix,
 * hidden item routes, automatic IRI routes (/{resources}/{id} and /.well-known/genid/…), resources
 * without routes, requirements, itemUriTemplate, the first Get, sub-resources with a provider, and
 * throwOnNotFound.
 */
import { expect } from 'chai';
import { bookstore, errorDoc, fixture, PROBLEM_JSON, request, useServer } from './harness.js';

const ids = (doc: { member: { '@id': string }[] }): string[] => doc.member.map((m) => m['@id']);

describe('HTTP IRIs: bookstore (routePrefix, hidden item route, no routes)', () => {
  const server = useServer(bookstore());

  it('POST /geo/places creates a place whose IRI carries the prefix', async () => {
    const r = await request(server.url, 'POST', '/geo/places', { body: { name: 'Lyon' } });
    expect(r.status, r.text).to.equal(201);
    expect(r.headers.get('location')).to.equal('/geo/places/1');
    expect(r.json).to.deep.equal({
      '@context': '/contexts/Place',
      '@id': '/geo/places/1',
      '@type': 'Place',
      id: 1,
      name: 'Lyon',
    });
  });

  it('GET /geo/places lists it with its IRI', async () => {
    const r = await request(server.url, 'GET', '/geo/places');
    expect(r.status).to.equal(200);
    expect(r.json['@id']).to.equal('/geo/places');
    expect(r.json['@type']).to.equal('Collection');
    expect(r.json.totalItems).to.equal(1);
    expect(r.json.member).to.deep.equal([{ '@id': '/geo/places/1', '@type': 'Place', id: 1, name: 'Lyon' }]);
  });

  it('GET /geo/places/1 answers 404 although the place exists (NotFoundAction)', async () => {
    const r = await request(server.url, 'GET', '/geo/places/1');
    expect(r.status).to.equal(404);
    expect(r.headers.get('content-type')).to.equal(PROBLEM_JSON);
    expect(r.json['@type']).to.equal('Error');
    expect(r.json.status).to.equal(404);
  });

  it('the unprefixed paths do not exist', async () => {
    expect((await request(server.url, 'GET', '/places')).status).to.equal(404);
    expect((await request(server.url, 'GET', '/places/1')).status).to.equal(404);
  });

  it('Receipt (operations {}) has no route at all', async () => {
    expect((await request(server.url, 'GET', '/receipts')).status).to.equal(404);
    expect((await request(server.url, 'GET', '/receipts/1')).status).to.equal(404);
    expect((await request(server.url, 'POST', '/receipts', { body: { total: 3 } })).status).to.equal(404);
  });
});

describe('HTTP IRIs: automatic IRI routes, first Get, itemUriTemplate (fixture iris.api)', () => {
  const server = useServer(fixture('iris.api'));

  describe('a resource with an identifier and no Get', () => {
    it('POST /tables answers 201 with the IRI /tables/1', async () => {
      const r = await request(server.url, 'POST', '/tables', { body: { seats: 4 } });
      expect(r.status, r.text).to.equal(201);
      expect(r.headers.get('location')).to.equal('/tables/1');
      expect(r.json).to.deep.equal({
        '@context': '/contexts/Table',
        '@id': '/tables/1',
        '@type': 'Table',
        id: 1,
        seats: 4,
      });
    });

    it('members of /tables have /tables/{id} IRIs', async () => {
      const r = await request(server.url, 'GET', '/tables');
      expect(r.status).to.equal(200);
      expect(ids(r.json)).to.deep.equal(['/tables/1']);
    });

    it('GET /tables/1 answers 404 "This route does not aim to be called."', async () => {
      const r = await request(server.url, 'GET', '/tables/1');
      expect(r.status).to.equal(404);
      expect(r.json).to.deep.equal(errorDoc(404, 'This route does not aim to be called.'));
    });
  });

  describe('a resource without identifier', () => {
    let first: string;

    it('POST /readings answers 201 with a /.well-known/genid/ IRI', async () => {
      const r = await request(server.url, 'POST', '/readings', { body: { sensor: 's1', value: 3 } });
      expect(r.status, r.text).to.equal(201);
      expect(r.json['@type']).to.equal('Reading');
      expect(r.json['@id']).to.match(/^\/\.well-known\/genid\/[^/]+$/);
      expect(r.json.sensor).to.equal('s1');
      expect(r.json.value).to.equal(3);
    });

    it('members of /readings have distinct /.well-known/genid/ IRIs', async () => {
      const r2 = await request(server.url, 'POST', '/readings', { body: { sensor: 's2', value: 4 } });
      expect(r2.status, r2.text).to.equal(201);
      const r = await request(server.url, 'GET', '/readings');
      expect(r.status).to.equal(200);
      expect(r.json.totalItems).to.equal(2);
      const iris = ids(r.json);
      for (const iri of iris) expect(iri).to.match(/^\/\.well-known\/genid\/[^/]+$/);
      expect(new Set(iris).size).to.equal(2);
      first = iris[0]!;
    });

    it('GET on a genid IRI answers 404', async () => {
      const r = await request(server.url, 'GET', first);
      expect(r.status).to.equal(404);
      expect(r.json).to.deep.equal(
        errorDoc(
          404,
          'This route is not exposed on purpose. It generates an IRI for a collection resource without identifier nor item operation.',
        ),
      );
    });

    it('there is no /readings/{id} route', async () => {
      expect((await request(server.url, 'GET', '/readings/1')).status).to.equal(404);
    });
  });

  describe('two Gets: the first one declared defines the item IRI', () => {
    it('POST /boats names the new item after the first Get', async () => {
      const r = await request(server.url, 'POST', '/boats', { body: { name: 'Calypso' } });
      expect(r.status, r.text).to.equal(201);
      expect(r.headers.get('location')).to.equal('/harbour/boats/1');
      expect(r.json['@id']).to.equal('/harbour/boats/1');
    });

    it('members of /boats use the first Get too', async () => {
      const r = await request(server.url, 'GET', '/boats');
      expect(ids(r.json)).to.deep.equal(['/harbour/boats/1']);
    });

    it('both item routes answer; each item requested through its own route keeps its URL as @id', async () => {
      const a = await request(server.url, 'GET', '/harbour/boats/1');
      expect(a.status).to.equal(200);
      expect(a.json).to.deep.equal({
        '@context': '/contexts/Boat',
        '@id': '/harbour/boats/1',
        '@type': 'Boat',
        id: 1,
        name: 'Calypso',
      });
      const b = await request(server.url, 'GET', '/boats/1');
      expect(b.status).to.equal(200);
      expect(b.json['@id']).to.equal('/boats/1');
      expect(b.json.name).to.equal('Calypso');
    });
  });

  describe('itemUriTemplate', () => {
    before(async () => {
      for (const body of [
        { brand: 'renault', model: 'Clio' },
        { brand: 'peugeot', model: '208' },
        { brand: 'renault', model: 'Zoe' },
      ]) {
        const r = await request(server.url, 'POST', '/cars', { body });
        if (r.status !== 201) throw new Error(`POST /cars answered ${r.status}: ${r.text}`);
      }
    });

    it('members of /cars follow the first Get', async () => {
      const r = await request(server.url, 'GET', '/cars');
      expect(ids(r.json)).to.deep.equal(['/cars/1', '/cars/2', '/cars/3']);
    });

    it('members of /brands/renault/cars follow the itemUriTemplate, and only renault cars are listed', async () => {
      const r = await request(server.url, 'GET', '/brands/renault/cars');
      expect(r.status).to.equal(200);
      expect(r.json['@id']).to.equal('/brands/renault/cars');
      expect(r.json.totalItems).to.equal(2);
      expect(r.json.member).to.deep.equal([
        { '@id': '/brands/renault/cars/1', '@type': 'Car', id: 1, brand: 'renault', model: 'Clio' },
        { '@id': '/brands/renault/cars/3', '@type': 'Car', id: 3, brand: 'renault', model: 'Zoe' },
      ]);
    });

    it('the item route named by itemUriTemplate answers with that IRI', async () => {
      const r = await request(server.url, 'GET', '/brands/renault/cars/3');
      expect(r.status).to.equal(200);
      expect(r.json).to.deep.equal({
        '@context': '/contexts/Car',
        '@id': '/brands/renault/cars/3',
        '@type': 'Car',
        id: 3,
        brand: 'renault',
        model: 'Zoe',
      });
    });

    it('the other URI variable is an equality condition: a car of another brand is 404 there', async () => {
      expect((await request(server.url, 'GET', '/brands/peugeot/cars/3')).status).to.equal(404);
    });
  });
});

describe('HTTP IRIs: requirements, sub-resource provider, throwOnNotFound (fixture places.api)', () => {
  const server = useServer(fixture('places.api'));
  before(async () => {
    const r = await request(server.url, 'POST', '/places', { body: { name: 'Lyon' } });
    expect(r.status, r.text).to.equal(201);
  });

  it('GET /places/1 (matches \\d+) answers 200', async () => {
    const r = await request(server.url, 'GET', '/places/1');
    expect(r.status).to.equal(200);
    expect(r.json).to.deep.equal({
      '@context': '/contexts/Place',
      '@id': '/places/1',
      '@type': 'Place',
      id: 1,
      name: 'Lyon',
    });
  });

  it('GET /places/abc does not match the requirement: 404', async () => {
    const r = await request(server.url, 'GET', '/places/abc');
    expect(r.status).to.equal(404);
    expect(r.json['@type']).to.equal('Error');
  });

  it("the sub-resource GET /places/5/weather answers 200 with the provider's data", async () => {
    const r = await request(server.url, 'GET', '/places/5/weather');
    expect(r.status, r.text).to.equal(200);
    expect(r.json).to.deep.equal({
      '@context': '/contexts/Weather',
      '@id': '/places/5/weather',
      '@type': 'Weather',
      placeId: 5,
      temperature: 21.5,
      condition: 'clear',
    });
  });

  it('a provider returning null answers 404 Not Found', async () => {
    const r = await request(server.url, 'GET', '/places/1000/weather');
    expect(r.status).to.equal(404);
    expect(r.json).to.deep.equal(errorDoc(404, 'Not Found'));
  });

  it('the sub-resource path keeps its requirement: /places/abc/weather is 404', async () => {
    expect((await request(server.url, 'GET', '/places/abc/weather')).status).to.equal(404);
  });

  it('throwOnNotFound: false on a Get whose provider returns null: no 404', async () => {
    const r = await request(server.url, 'GET', '/places/1/forecast');
    expect(r.status, r.text).to.be.within(200, 299);
  });

  it('throwOnNotFound: true on a POST with read: true: an unknown id answers 404', async () => {
    const r = await request(server.url, 'POST', '/places/999/visits', { body: {} });
    expect(r.status).to.equal(404);
    expect(r.json).to.deep.equal(errorDoc(404, 'Not Found'));
  });

  it('the same POST on an existing place reaches the processor', async () => {
    const r = await request(server.url, 'POST', '/places/1/visits', { body: {} });
    expect(r.status, r.text).to.equal(200);
    expect(r.json['@id']).to.equal('/places/1');
    expect(r.json.visits).to.equal(1);
  });

  it('a POST with read: true and no throwOnNotFound goes on with null data for an unknown id', async () => {
    const r = await request(server.url, 'POST', '/places/999/check-ins', { body: {} });
    expect(r.status, r.text).to.equal(201);
    expect(r.json.name).to.equal('no such place');
  });

  it('... and hands the place it read to the processor for a known id', async () => {
    const r = await request(server.url, 'POST', '/places/1/check-ins', { body: {} });
    expect(r.status, r.text).to.equal(201);
    expect(r.json.name).to.equal('checked in at Lyon');
  });
});
