/**
 * Row-level scopes at load (docs/scopes.md): the properties a scope reads are indexed (on the item, and on the
 * related resource a path through relations ends on), and a scoped
 * resource's Mercure updates are private even where `mercure: true` says nothing more.
 */
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadApi } from '../../server/load-api.js';
import { mercureOptions } from '../../server/realtime/index.js';
import { tempDir } from '../http/harness.js';
import { fromRoot } from '../support/paths.js';

process.env.APIDSL_JWT_SECRET ??= 'a-test-secret-that-is-long-enough-for-hs512-0123456789abcdef';

describe('metadata: row-level scopes', () => {
  it('indexes the properties a scope reads on the item (examples/marketplace.api)', async () => {
    const api = await loadApi(fromRoot('examples/marketplace.api'));
    expect(api.resource('Order')!.storage.indexes).to.deep.include.members([['buyer'], ['product']]);
    expect(api.resource('Product')!.storage.indexes).to.deep.include.members([['published'], ['shop']]);
    expect(api.resource('Shop')!.storage.indexes).to.deep.include(['owner']);
  });

  it('indexes the property a path through relations ends on, on the related resource, and the relation after the identifier on the item', async () => {
    const file = join(tempDir(), 'paths.api');
    writeFileSync(
      file,
      `api "Paths" { version: "1" }
resource Owner { properties { id: int { identifier: true }, name: string, team: string } }
resource Shop { properties { id: int { identifier: true }, owner: Owner, city: string } }
resource Note {
  scope: "object.shop.city == 'Lyon' or object.shop.owner.team == user?.identifier"
  properties { id: int { identifier: true }, shop: Shop }
}`,
    );
    const api = await loadApi(file);
    expect(api.resource('Shop')!.storage.indexes).to.deep.equal([['owner'], ['city']]);
    expect(api.resource('Owner')!.storage.indexes).to.deep.equal([['team']]);
    // The identifier and the relation: a page in key order tests the relation from that index (SQLite).
    expect(api.resource('Note')!.storage.indexes).to.deep.equal([['shop'], ['id', 'shop']]);
  });

  it('publishes the updates of a scoped resource as private ones', async () => {
    const file = join(tempDir(), 'live.api');
    writeFileSync(
      file,
      `api "Live" { version: "1" }
config { mercure { hub: "builtin" } }
resource Note {
  mercure: true
  scope: "object.owner == user?.identifier"
  properties { id: int { identifier: true }, owner: string }
}
resource Open {
  mercure: true
  properties { id: int { identifier: true }, owner: string }
}`,
    );
    const api = await loadApi(file);
    const first = (name: string) => api.resource(name)!.operations[0]!;
    expect(mercureOptions(first('Note'), api.settings)?.private).to.equal(true);
    expect(mercureOptions(first('Open'), api.settings)?.private).to.equal(false);
  });
});
