/**
 * What API Platform Admin reads of the Hydra documentation (docs/admin.md, "What it shows"), through its own parser
 * (`@api-platform/api-doc-parser`) over the served shop: one resource per collection with one list and one show
 * even beside named operations, a relation as a reference to its target resource labelled by a `schema:name`
 * property, a list of strings as an array, datetimes, required fields; and the enum values as the documentation
 * states them (the parser does not read them; the admin does, admin/src/enums.js). Runs on the store the harness
 * selects.
 */
import { expect } from 'chai';
import { parseHydraDocumentation, type Api, type Resource } from '@api-platform/api-doc-parser';
import { SHOP } from './admin-helpers.js';
import { get, useServer } from './harness.js';

const XSD = 'http://www.w3.org/2001/XMLSchema#';

describe('the Hydra documentation as API Platform Admin reads it', function () {
  this.timeout(60_000);
  const server = useServer(SHOP);
  let api: Api;
  const resource = (name: string): Resource => {
    const found = api.resources?.find((r) => r.name === name);
    expect(found, name).to.not.equal(undefined);
    return found!;
  };
  const field = (resourceName: string, name: string) => resource(resourceName).fields!.find((f) => f.name === name)!;
  before(async () => {
    api = (await parseHydraDocumentation(`${server.url}/`)).api;
  });

  it('one resource per collection, at the collection path, even when a named collection is declared first', () => {
    expect(api.resources!.map((r) => [r.name, r.url])).to.deep.equal([
      ['categories', `${server.url}/categories`],
      ['products', `${server.url}/products`],
    ]);
  });

  it('one list, create, show, edit and delete per resource: named operations at other paths are not among them', () => {
    expect(
      resource('products')
        .operations!.map((o) => `${o.type} ${o.method}`)
        .sort(),
    ).to.deep.equal(['create POST', 'delete DELETE', 'edit PATCH', 'list GET', 'show GET']);
  });

  it('a relation is a reference to its target, whose label property is schema:name', () => {
    const category = field('products', 'category');
    expect((category.reference as Resource | null)?.name).to.equal('categories');
    expect(category.maxCardinality).to.equal(1);
    expect(field('categories', 'name').id).to.equal('https://schema.org/name');
    // A resource no relation points to keeps its own property IRIs.
    expect(field('products', 'name').id).to.equal(`${server.url}/docs.jsonld#Product/name`);
  });

  it('the JSON-LD context maps the label property to the same IRI', async () => {
    const context = (await get(server.url, '/contexts/Category')).json['@context'] as Record<string, unknown>;
    expect(context.name).to.equal('https://schema.org/name');
  });

  it('a list of strings is an array, a datetime a dateTime, and required fields are required', () => {
    expect(field('products', 'tags').range).to.equal(`${XSD}array`);
    expect(field('products', 'releasedAt').range).to.equal(`${XSD}dateTime`);
    expect(field('products', 'price').range).to.equal(`${XSD}decimal`);
    expect(
      resource('products')
        .fields!.filter((f) => f.required)
        .map((f) => f.name),
    ).to.deep.equal(['name', 'status']);
  });

  it('an enum keeps its datatype as the range the parser reads, and lists its values as an OWL enumerated datatype', async () => {
    expect(field('products', 'status').range).to.equal(`${XSD}string`);
    const docs = (await get(server.url, '/docs.jsonld')).json as { supportedClass: Record<string, unknown>[] };
    const product = docs.supportedClass.find((c) => c['@id'] === '#Product')!;
    const status = (product.supportedProperty as { property: Record<string, unknown> }[]).find(
      (p) => p.property.label === 'status',
    )!;
    expect(status.property.range).to.deep.equal([
      'xsd:string',
      { '@type': 'rdfs:Datatype', 'owl:oneOf': { '@list': ['draft', 'published', 'archived'] } },
    ]);
  });
});
