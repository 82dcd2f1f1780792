/**
 * The identifier rule (server/protocol/identifier.ts) on the resources of test/fixtures/http/identifiers.api:
 * Talk (int), Speaker (string, its Get requiring `[a-z0-9.-]+`).
 */
import { expect } from 'chai';
import type { ApiMetadata, ResourceMetadata } from '../../server/metadata/types.js';
import { identifierFault, routeIdentifier } from '../../server/protocol/identifier.js';
import { loadApi } from '../../server/load-api.js';
import { fromRoot } from '../support/paths.js';

describe('protocol: identifiers', () => {
  let api: ApiMetadata;
  let talk: ResourceMetadata;
  let speaker: ResourceMetadata;
  before(async () => {
    api = await loadApi(fromRoot('test/fixtures/http/identifiers.api'));
    talk = api.resource('Talk')!;
    speaker = api.resource('Speaker')!;
  });

  it('int: a positive safe integer, nothing else', () => {
    for (const ok of [1, 2, 1234567890123456, Number.MAX_SAFE_INTEGER])
      expect(identifierFault(talk, ok)).to.equal(undefined);
    for (const bad of [0, -0, -1, 1.5, 2 ** 53, Infinity, NaN, '1', null, true])
      expect(identifierFault(talk, bad), String(bad)).to.be.a('string');
  });

  it('string: what the routes read back, within every operation’s requirements', () => {
    for (const ok of ['a', 'a.', '.hidden', '42', 'x-y-z', 'a.b.'])
      expect(identifierFault(speaker, ok), ok).to.equal(undefined);
    for (const bad of [
      '',
      'a/b',
      'a.json',
      'b.jsonld',
      'v1.2',
      'x-y.z-',
      'x..',
      '.',
      '..',
      '\ud800',
      'Upper',
      'a b',
      7,
    ])
      expect(identifierFault(speaker, bad), JSON.stringify(bad)).to.be.a('string');
  });

  it('reads a route value as the identifier type; a value no item can have names none', () => {
    expect(routeIdentifier(talk, '42')).to.equal(42);
    expect(routeIdentifier(talk, '007')).to.equal(7);
    for (const raw of ['0', '-1', '1.5', '1e3', '9007199254740992', '99999999999999999999', '', ' 1'])
      expect(routeIdentifier(talk, raw), raw).to.equal(undefined);
    expect(routeIdentifier(speaker, 'ada')).to.equal('ada');
  });

  it('applies the other operations’ requirements to an item to create only (a route checked its own)', () => {
    expect(routeIdentifier(speaker, 'UPPER')).to.equal('UPPER');
    expect(routeIdentifier(speaker, 'UPPER', true)).to.equal(undefined);
    expect(routeIdentifier(speaker, 'lower', true)).to.equal('lower');
  });
});
