/**
 * The examples of the served OpenAPI document are accepted by the API: every write operation's
 * example request body, sent as documented (POSTs first, retried until the items their relations
 * point at exist; then PUT and PATCH on the created items), answers 2xx; every relation example is
 * the IRI of an item on the target's real route; enum and format examples are valid values.
 */
import { expect } from 'chai';
import { fromRoot } from '../support/paths.js';
import { get, request, useServer } from './harness.js';

type Any = any;

interface Write {
  method: string;
  path: string;
  resource: string;
  contentType: string;
  example: Record<string, unknown>;
}

function writes(doc: Any): Write[] {
  const out: Write[] = [];
  for (const [path, item] of Object.entries<Any>(doc.paths)) {
    for (const [method, op] of Object.entries<Any>(item)) {
      const content = op?.requestBody?.content;
      if (!content || method === 'query') continue;
      const [contentType, media] = Object.entries<Any>(content)[0];
      expect(media.example, `${method} ${path} has an example body`).to.be.an('object');
      out.push({ method: method.toUpperCase(), path, resource: op.tags[0], contentType, example: media.example });
    }
  }
  return out;
}

for (const example of ['catalogue.api', 'places.api', 'bookstore.api', 'event-log.api']) {
  describe(`OpenAPI examples the API accepts: ${example}`, function () {
    this.timeout(60_000);
    const server = useServer(fromRoot(`examples/${example}`));
    let doc: Any;
    const created = new Map<string, Any>();

    before(async () => {
      doc = (await get(server.url, '/docs.json')).json;
    });

    it('every POST example creates an item (targets of relations first)', async () => {
      const posts = writes(doc).filter((w) => w.method === 'POST' && !w.path.includes('{'));
      expect(posts.length).to.be.greaterThan(0);
      let pending = posts;
      const failures: string[] = [];
      for (let pass = 0; pending.length > 0 && pass < posts.length; pass++) {
        const left: Write[] = [];
        failures.length = 0;
        for (const w of pending) {
          const r = await request(server.url, 'POST', w.path, {
            body: JSON.stringify(w.example),
            headers: { 'Content-Type': w.contentType, Accept: 'application/ld+json' },
          });
          if (r.status >= 200 && r.status < 300) {
            if (r.json?.['@id'] && !created.has(w.resource)) created.set(w.resource, r.json);
          } else {
            left.push(w);
            failures.push(`POST ${w.path} ${JSON.stringify(w.example)} → ${r.status} ${r.text}`);
          }
        }
        pending = left;
      }
      expect(failures, failures.join('\n')).to.deep.equal([]);
    });

    it('every PUT, PATCH and item POST example is accepted on a created item', async () => {
      const failures: string[] = [];
      let sent = 0;
      for (const w of writes(doc).filter((x) => x.method !== 'POST' || x.path.includes('{'))) {
        const item = created.get(w.resource);
        if (!item) continue; // a resource without a collection POST has nothing to write to
        const path = w.path.replace(/\{([^{}]+)\}/g, (_, name: string) =>
          encodeURIComponent(String(item[name] ?? item['@id'].split('/').pop())),
        );
        const r = await request(server.url, w.method, path, {
          body: JSON.stringify(w.example),
          headers: { 'Content-Type': w.contentType },
        });
        sent++;
        if (r.status < 200 || r.status >= 300)
          failures.push(`${w.method} ${path} ${JSON.stringify(w.example)} → ${r.status} ${r.text}`);
      }
      expect(failures, failures.join('\n')).to.deep.equal([]);
      if (example !== 'event-log.api') expect(sent).to.be.greaterThan(0);
    });

    it('relation examples are IRIs of existing items on the real route; enum examples are enum values', async () => {
      for (const [name, schema] of Object.entries<Any>(doc.components.schemas)) {
        for (const [prop, s] of Object.entries<Any>(schema.properties ?? {})) {
          const value = s.examples?.[0];
          if (s.format === 'iri-reference' && typeof value === 'string' && !prop.startsWith('@')) {
            // An IRI path; where it is on a documented item route of a resource an item was created for, it is that item.
            expect(value, `${name}.${prop}`).to.match(/^\/[^\s]*$/);
            const route = Object.entries<Any>(doc.paths).find(
              ([p, item]) => item.get && new RegExp(`^${p.replace(/\{[^{}]+\}/g, '[^/]+')}$`).test(value),
            );
            if (route && created.has(route[1].get.tags[0]))
              expect((await get(server.url, value)).status, `${name}.${prop} example ${value}`).to.equal(200);
          }
          if (Array.isArray(s.enum) && value !== undefined) expect(s.enum, `${name}.${prop}`).to.deep.include(value);
          if (s.format === 'date-time' && value !== undefined)
            expect(Number.isNaN(Date.parse(value)), `${name}.${prop}`).to.equal(false);
          if (s.format === 'date' && value !== undefined) expect(value).to.match(/^\d{4}-\d{2}-\d{2}$/);
          if (typeof s.pattern === 'string' && typeof value === 'string')
            expect(value).to.match(new RegExp(s.pattern, 'u'));
        }
      }
    });
  });
}
