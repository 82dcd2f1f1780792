/**
 * Every relation is indexed (a delete of its target looks its referrers up, docs/behaviour.md "Deleting a
 * referenced item"): a to-one relation as a field, a to-many one by element; `onDelete` is read, restrict by default.
 */
import { expect } from 'chai';
import { loadApi } from '../../server/load-api.js';
import { fromRoot } from '../support/paths.js';

describe('metadata: relations are indexed and carry their onDelete', () => {
  it('indexes each relation field of the conference fixture and reads its referential action', async () => {
    const api = await loadApi(fromRoot('test/fixtures/http/referential.api'));
    const talk = api.resource('Talk')!;
    expect(talk.storage.indexes).to.deep.include.members([['speaker'], ['cospeakers'], ['track']]);
    expect(talk.storage.fields.cospeakers).to.equal('array');
    expect(api.resource('Review')!.storage.indexes).to.deep.include(['talk']);
    const action = (resource: string, name: string): unknown =>
      api.resource(resource)!.properties.find((p) => p.name === name)!.onDelete;
    expect(action('Talk', 'speaker')).to.equal('cascade');
    expect(action('Talk', 'cospeakers')).to.equal('setNull');
    expect(action('Talk', 'track')).to.equal('setNull');
    expect(action('Review', 'talk')).to.equal('restrict');
    expect(action('Talk', 'title')).to.equal(undefined);
  });
});
