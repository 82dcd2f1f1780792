/**
 * The connection settings of `config elasticsearch` as a loaded API holds them (server/metadata/search-index.ts):
 * the environment's APIDSL_ELASTICSEARCH_URL and APIDSL_ELASTICSEARCH_INDEX_PREFIX over the file's `hosts` and
 * `index_prefix`, and the index name that follows (test/http/elasticsearch.test.ts shows the names on a real
 * engine where ZincSearch is installed).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { indexName } from '../../server/metadata/search-index.js';
import type { ApiMetadata } from '../../server/metadata/types.js';
import { loadApi } from '../../server/load-api.js';

const dir = mkdtempSync(join(tmpdir(), 'apidsl-search-settings-'));
const VARIABLES = ['APIDSL_ELASTICSEARCH_INDEX_PREFIX', 'APIDSL_ELASTICSEARCH_URL'] as const;

/** The API of a file with this `elasticsearch` block, loaded under these environment variables. */
async function load(block: string, env: Partial<Record<(typeof VARIABLES)[number], string>>): Promise<ApiMetadata> {
  const file = join(dir, `api-${Math.random().toString(36).slice(2)}.api`);
  writeFileSync(
    file,
    `config { elasticsearch { ${block} } }\n` +
      'resource BookReview {\n  elasticsearch: true\n  properties { id: int { identifier: true }, text: string }\n' +
      '  operations { GetCollection, Get }\n}\n',
  );
  const saved = VARIABLES.map((name) => process.env[name]);
  try {
    for (const name of VARIABLES) delete process.env[name];
    Object.assign(process.env, env);
    return await loadApi(file);
  } finally {
    VARIABLES.forEach((name, i) =>
      saved[i] === undefined ? delete process.env[name] : (process.env[name] = saved[i]),
    );
  }
}

const indexOf = (api: ApiMetadata): string =>
  indexName(api.resource('BookReview')!, api.settings.searchIndex.indexPrefix);

describe('search index settings: the environment over config elasticsearch', () => {
  const written = 'hosts: ["http://es.internal:9200"], index_prefix: "shop_"';

  it('takes index_prefix and hosts from the file when the environment sets neither', async () => {
    const api = await load(written, {});
    expect(api.settings.searchIndex.hosts).to.deep.equal(['http://es.internal:9200']);
    expect(indexOf(api)).to.equal('shop_book_review');
  });

  it('APIDSL_ELASTICSEARCH_INDEX_PREFIX overrides index_prefix, an empty value too', async () => {
    expect(indexOf(await load(written, { APIDSL_ELASTICSEARCH_INDEX_PREFIX: 'staging_' }))).to.equal(
      'staging_book_review',
    );
    expect(indexOf(await load(written, { APIDSL_ELASTICSEARCH_INDEX_PREFIX: '' }))).to.equal('book_review');
    expect(indexOf(await load('timeout: 500', {}))).to.equal('book_review');
    expect(indexOf(await load('timeout: 500', { APIDSL_ELASTICSEARCH_INDEX_PREFIX: 'p_' }))).to.equal('p_book_review');
  });

  it('APIDSL_ELASTICSEARCH_URL overrides hosts', async () => {
    const api = await load(written, { APIDSL_ELASTICSEARCH_URL: 'http://a:1, http://b:2' });
    expect(api.settings.searchIndex.hosts).to.deep.equal(['http://a:1', 'http://b:2']);
  });
});
