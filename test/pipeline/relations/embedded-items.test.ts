/**
 * Reading the related items a response embeds (server/pipeline/relations/embedded-items.ts): one store query per
 * embedded relation and level for a whole page, never one per item; an IRI that names no item stays an IRI when
 * written (representation/embedding.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { ReadEmbeddedItems } from '../../../server/pipeline/relations/embedded-items.js';
import { embeddingPlan, EmbeddingWriter } from '../../../server/pipeline/representation/embedding.js';
import { loadApi } from '../../../server/load-api.js';
import { openSqliteStore } from '../../../server/store/sqlite/store.js';
import type { ApiMetadata, ResourceMetadata } from '../../../server/metadata/types.js';
import type { Collection, Id, Store } from '../../../server/store/types.js';

const API = `api "Embedding" { version: "1" }
resource Organisation {
  properties { id: int { identifier: true }, name: string { groups: ["read"] } }
}
resource Speaker {
  properties {
    id: int { identifier: true }
    name: string { groups: ["read"] }
    organisation: Organisation { groups: ["read"] }
  }
}
resource Talk {
  normalizationContext: { groups: ["read"] }
  properties {
    id: int { identifier: true }
    title: string { groups: ["read"] }
    speaker: Speaker { groups: ["read"] }
    reviewers: Speaker[] { groups: ["read"] }
  }
}
`;

describe('embedded items: read in one query per relation and level', () => {
  let dir: string;
  let api: ApiMetadata;
  let store: Store;
  const collections = new Map<ResourceMetadata, Collection>();
  /** The identifiers `getMany` was asked for, by resource. */
  const finds: [string, readonly Id[]][] = [];
  const counting = (resource: ResourceMetadata, inner: Collection): Collection =>
    new Proxy(inner, {
      get(target, key, receiver) {
        if (key === 'getMany')
          return (ids: readonly Id[]) => {
            finds.push([resource.shortName, ids]);
            return target.getMany(ids);
          };
        if (key === 'get' || key === 'find') throw new Error(`${key}: not the one read of the items named`);
        const value = Reflect.get(target, key, receiver) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'apidsl-embedded-'));
    writeFileSync(join(dir, 'api.api'), API);
    api = await loadApi(join(dir, 'api.api'));
    store = await openSqliteStore({ memory: true });
    for (const r of api.resources) collections.set(r, await store.collection(r.storage));
    const [organisations, speakers] = [api.resource('Organisation')!, api.resource('Speaker')!].map((r) =>
      collections.get(r)!,
    );
    for (let i = 1; i <= 3; i++) await organisations.insert({ id: i, name: `O${i}` });
    for (let i = 1; i <= 7; i++)
      await speakers.insert({ id: i, name: `S${i}`, organisation: `/organisations/${(i % 3) + 1}` });
  });
  after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads a page of 30 talks with three queries (speakers, reviewers, their organisations); a dangling IRI stays', async () => {
    const talk = api.resource('Talk')!;
    const get = talk.operations.find((o) => o.method === 'GET' && !o.isCollection)!;
    const plan = embeddingPlan(get, api)!;
    const items = Array.from({ length: 30 }, (_, i) => ({
      id: i + 1,
      title: `T${i + 1}`,
      // Talk 30 names a speaker that does not exist.
      speaker: i === 29 ? '/speakers/99' : `/speakers/${(i % 5) + 1}`,
      reviewers: [`/speakers/${6 + (i % 2)}`, `/speakers/${(i % 5) + 1}`],
    }));
    const runtime = { api, collectionOf: (r: ResourceMetadata) => counting(r, collections.get(r)!) };
    const read = await new ReadEmbeddedItems().read(runtime, plan, get, items, async () => new Set());
    expect(finds.map(([resource]) => resource)).to.deep.equal(['Speaker', 'Speaker', 'Organisation']);
    // Every speaker once: the reviewers' query asks only for those the speakers' query did not read.
    const asked = finds.map(([, ids]) => ids);
    expect(asked[0]).to.have.members([1, 2, 3, 4, 5, 99]);
    expect(asked[1]).to.have.members([6, 7]);
    expect(asked[2]).to.have.members([1, 2, 3]);
    const writer = new EmbeddingWriter(plan, read, true, { origin: '', path: '/talks' });
    const speaker = talk.properties.find((p) => p.name === 'speaker')!;
    expect(writer.relationsFor(talk, items[0], undefined)(speaker, items[0].speaker)).to.deep.equal({
      '@id': '/speakers/1',
      '@type': 'Speaker',
      name: 'S1',
      organisation: { '@id': '/organisations/2', '@type': 'Organisation', name: 'O2' },
    });
    expect(writer.relationsFor(talk, items[29], undefined)(speaker, '/speakers/99')).to.equal('/speakers/99');
  });
});
