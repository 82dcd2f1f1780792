/**
 * The mapping each engine's indexes are created with (server/search/mapping.ts): per property type, the field type
 * Elasticsearch and OpenSearch take, and the one ZincSearch takes (its own names and flags). The second half checks
 * what a server sends: the engine answers its root document as Elasticsearch, OpenSearch or ZincSearch, and the
 * index is created with that engine's mapping. The suites against a real engine run on ZincSearch only
 * (test/http/elasticsearch.test.ts).
 */
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import type { ApiMetadata, ResourceMetadata } from '../../server/metadata/types.js';
import { SearchIndex } from '../../server/search/index.js';
import { indexMapping } from '../../server/search/mapping.js';
import { loadApi } from '../../server/load-api.js';

const API = `config { elasticsearch { index_prefix: "t_" } }
resource Shelf {
  properties { code: string { identifier: true } }
}
resource Book {
  elasticsearch: true
  properties {
    id: int { identifier: true }
    pages: int
    price: number
    available: bool
    updatedAt: datetime
    publishedOn: date
    title: string
    tags: string[]
    extra: json
    shelf: Shelf
  }
  operations { GetCollection, Get }
}
`;

const keyword = { type: 'keyword' };
const ELASTICSEARCH = {
  id: { type: 'long' },
  pages: { type: 'long' },
  price: { type: 'double' },
  available: { type: 'boolean' },
  updatedAt: { type: 'date' },
  publishedOn: { type: 'date', format: 'strict_date' },
  title: { type: 'text', fields: { keyword } },
  tags: { type: 'text', fields: { keyword } },
  extra: { type: 'object', enabled: false },
  shelf: keyword,
};

const flags = { index: true, sortable: true, aggregatable: false };
const ZINCSEARCH = {
  id: { type: 'numeric', ...flags },
  pages: { type: 'numeric', ...flags },
  price: { type: 'numeric', ...flags },
  available: { type: 'bool', ...flags },
  updatedAt: { type: 'date', ...flags },
  publishedOn: { type: 'date', format: '2006-01-02', ...flags },
  title: { type: 'text', ...flags, fields: { keyword: { type: 'keyword', ...flags } } },
  tags: { type: 'text', ...flags, fields: { keyword: { type: 'keyword', ...flags } } },
  extra: { type: 'text', index: false },
  shelf: { type: 'keyword', ...flags },
};

/** The API above, its engine at `url`. */
async function load(url: string): Promise<ApiMetadata> {
  const file = join(mkdtempSync(join(tmpdir(), 'apidsl-mapping-')), 'books.api');
  writeFileSync(file, API);
  const saved = process.env.APIDSL_ELASTICSEARCH_URL;
  process.env.APIDSL_ELASTICSEARCH_URL = url;
  try {
    return await loadApi(file);
  } finally {
    if (saved === undefined) delete process.env.APIDSL_ELASTICSEARCH_URL;
    else process.env.APIDSL_ELASTICSEARCH_URL = saved;
  }
}

describe('search index mapping, per engine and property type', () => {
  let book: ResourceMetadata;
  before(async () => {
    book = (await load('http://127.0.0.1:9')).resource('Book')!;
  });

  it('Elasticsearch and OpenSearch: long, double, boolean, date (strict_date), text with a keyword, keyword', () => {
    expect(indexMapping(book, 'elasticsearch')).to.deep.equal({ properties: ELASTICSEARCH });
  });

  it("ZincSearch: numeric, bool, date (Go's layout), text with a keyword, keyword, each flagged", () => {
    expect(indexMapping(book, 'zincsearch')).to.deep.equal({ properties: ZINCSEARCH });
  });

  it('a string identifier is a keyword, not analysed text', async () => {
    const shelf = (await load('http://127.0.0.1:9')).resource('Shelf')!;
    expect(indexMapping(shelf, 'elasticsearch').properties).to.deep.equal({ code: keyword });
    expect(indexMapping(shelf, 'zincsearch').properties).to.deep.equal({ code: { type: 'keyword', ...flags } });
  });
});

/** An engine that answers its root document with `info`, has no index, and keeps the bodies of index creations. */
async function fakeEngine(info: object): Promise<{ url: string; created: Map<string, unknown>; server: Server }> {
  const created = new Map<string, unknown>();
  const body = async (req: IncomingMessage): Promise<string> => {
    let text = '';
    for await (const chunk of req) text += String(chunk);
    return text;
  };
  const server = createServer((req, res) => {
    void body(req).then((text) => {
      const json = (status: number, value: unknown): void => {
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      };
      if (req.method === 'GET' && req.url === '/') return json(200, info);
      if (req.method === 'HEAD') return res.writeHead(404).end();
      if (req.method === 'PUT') {
        created.set(req.url!.slice(1), JSON.parse(text));
        return json(200, { acknowledged: true });
      }
      json(400, { error: `unexpected ${req.method} ${req.url}` });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, created, server };
}

const ENGINES = [
  {
    engine: 'Elasticsearch 8',
    info: { name: 'node-1', version: { number: '8.13.0', lucene_version: '9.10.0' }, tagline: 'You Know, for Search' },
    expected: ELASTICSEARCH,
  },
  {
    engine: 'OpenSearch 2',
    info: { name: 'node-1', version: { distribution: 'opensearch', number: '2.13.0', lucene_version: '9.10.0' } },
    expected: ELASTICSEARCH,
  },
  {
    engine: 'ZincSearch',
    info: { name: 'zinc', version: { number: '0.4.10', lucene_version: 'N/A' } },
    expected: ZINCSEARCH,
  },
];

describe('search index creation: the mapping sent to the engine that answers', () => {
  for (const { engine, info, expected } of ENGINES) {
    it(`${engine}`, async () => {
      const fake = await fakeEngine(info);
      const index = new SearchIndex(await load(fake.url), pino({ level: 'silent' }));
      try {
        expect(await index.ready()).to.equal(true);
        expect(Object.fromEntries(fake.created)).to.deep.equal({ t_book: { mappings: { properties: expected } } });
      } finally {
        await index.close();
        fake.server.close();
      }
    });
  }
});
