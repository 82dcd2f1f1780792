/**
 * Real Hydra clients read a served example: API Platform Admin's parser (`@api-platform/api-doc-parser`)
 * finds every resource, field, operation and filter of the documentation, and `alcaeus` follows the
 * links from the entrypoint to every collection and reads them. Runs on the store the harness selects.
 */
import { expect } from 'chai';
import { parseHydraDocumentation, type Api, type Resource } from '@api-platform/api-doc-parser';
import create from 'alcaeus';
import rdf, { Environment } from '@zazuko/env-node';
import { bookstore, request, useServer } from './harness.js';

const XSD = 'http://www.w3.org/2001/XMLSchema#';

describe('Hydra clients read the bookstore', function () {
  this.timeout(60_000);
  const server = useServer(bookstore());
  before(async () => {
    const r = await request(server.url, 'POST', '/books', {
      body: { title: 'Dune', author: 'Frank Herbert', price: 9.99 },
    });
    if (r.status !== 201) throw new Error(`seeding answered ${r.status}: ${r.text}`);
  });

  describe('@api-platform/api-doc-parser (API Platform Admin)', () => {
    let api: Api;
    const resource = (name: string): Resource => {
      const found = api.resources?.find((r) => r.name === name);
      expect(found, `resource ${name}`).to.not.equal(undefined);
      return found!;
    };
    before(async () => {
      const parsed = await parseHydraDocumentation(`${server.url}/`).catch((e: { error?: Error }) => {
        throw new Error(`the parser refused the documentation: ${e.error?.message ?? String(e)}`);
      });
      expect(parsed.status).to.equal(200);
      api = parsed.api;
    });

    it('finds the API and every resource with a collection, at its URL', () => {
      expect(api.title).to.equal('Bookstore');
      expect(api.resources?.map((r) => [r.name, r.url]).sort()).to.deep.equal([
        ['books', `${server.url}/books`],
        ['events', `${server.url}/events`],
        ['geo/places', `${server.url}/geo/places`],
      ]);
    });

    it('finds every field with its type and whether it is required', () => {
      const fields = Object.fromEntries(resource('books').fields!.map((f) => [f.name, [f.range, f.required]]));
      expect(fields).to.deep.equal({
        id: [`${XSD}integer`, false],
        title: [`${XSD}string`, true],
        author: [`${XSD}string`, false],
        price: [`${XSD}decimal`, false],
        publishedAt: [`${XSD}dateTime`, false],
      });
      expect(resource('events').fields!.map((f) => f.name)).to.deep.equal(['id', 'name']);
      expect(resource('geo/places').fields!.map((f) => f.name)).to.deep.equal(['id', 'name']);
    });

    it('finds every operation', () => {
      const ops = (name: string): string[] =>
        resource(name)
          .operations!.map((o) => `${o.type} ${o.method}`)
          .sort();
      expect(ops('books')).to.include.members([
        'list GET',
        'create POST',
        'show GET',
        'edit PUT',
        'edit PATCH',
        'delete DELETE',
      ]);
      expect(ops('events')).to.deep.equal(['list GET', 'show GET']);
      expect(ops('geo/places')).to.deep.equal(['create POST', 'list GET', 'show GET']);
    });

    it('finds every filter of a collection', async () => {
      const variables = (await resource('books').getParameters!()).map((p) => p.variable).sort();
      expect(variables).to.include.members([
        'order[id]',
        'order[title]',
        'order[price]',
        'price[between]',
        'price[gt]',
        'price[gte]',
        'price[lt]',
        'price[lte]',
        'title',
        'title[]',
        'author',
        'author[]',
      ]);
      expect((await resource('events').getParameters!()).map((p) => p.variable).sort()).to.include.members([
        'order[id]',
        'id[gt]',
      ]);
    });
  });

  describe('alcaeus', () => {
    const client = () => new Environment(create(), { parent: rdf }).hydra;

    it("loads the entrypoint as the documentation's Entrypoint class and follows its links to every collection", async () => {
      const hydra = client();
      const { response, representation } = await hydra.loadResource(`${server.url}/`);
      expect(response?.xhr.status).to.equal(200);
      const root = representation!.root!;
      expect([...root.types.values()].map((t) => t.id.value)).to.deep.equal([`${server.url}/docs.jsonld#Entrypoint`]);
      expect(hydra.apiDocumentations.length).to.equal(1);
      const classes = hydra.apiDocumentations[0]!.root!.supportedClass.map((c) => c.id.value);
      expect(classes).to.include.members([`${server.url}/docs.jsonld#Book`, `${server.url}/docs.jsonld#Entrypoint`]);

      const links = root
        .getLinks()
        .map((l) => [l.supportedProperty.property!.id.value, l.resources.map((r) => r.id.value)]);
      expect(links).to.deep.equal([
        [`${server.url}/docs.jsonld#Entrypoint/book`, [`${server.url}/books`]],
        [`${server.url}/docs.jsonld#Entrypoint/event`, [`${server.url}/events`]],
        [`${server.url}/docs.jsonld#Entrypoint/place`, [`${server.url}/geo/places`]],
      ]);
      for (const [, [target]] of links) {
        const loaded = await hydra.loadResource(target as string);
        expect(loaded.response?.xhr.status, String(target)).to.equal(200);
        const collection = loaded.representation!.root!;
        expect(
          [...collection.types.values()].map((t) => t.id.value),
          String(target),
        ).to.include('http://www.w3.org/ns/hydra/core#Collection');
      }
    });

    it('reads the members of a collection and follows a member to its item', async () => {
      const hydra = client();
      const { representation } = await hydra.loadResource(`${server.url}/books`);
      const collection = representation!.root! as unknown as {
        member: { id: { value: string } }[];
        totalItems: number;
      };
      expect(collection.totalItems).to.equal(1);
      expect(collection.member.map((m) => m.id.value)).to.deep.equal([`${server.url}/books/1`]);
      const item = await hydra.loadResource(collection.member[0]!.id.value);
      expect(item.response?.xhr.status).to.equal(200);
      const book = item.representation!.root!;
      expect([...book.types.values()].map((t) => t.id.value)).to.deep.equal([`${server.url}/docs.jsonld#Book`]);
      expect(book.getString(`${server.url}/docs.jsonld#Book/title`)).to.equal('Dune');
    });
  });
});
