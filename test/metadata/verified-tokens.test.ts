/**
 * The memory of verified tokens (server/metadata/verified-tokens.ts): a remembered token is given back only
 * within its exp/nbf window (with the leeway), as a fresh copy, and the memory stays bounded.
 */
import { expect } from 'chai';
import { VerifiedTokens } from '../../server/metadata/verified-tokens.js';

const NOW = 1_800_000_000;

describe('security: verified tokens remembered by their text', () => {
  it('gives back the payload of a remembered token, and nothing for any other text', () => {
    const tokens = new VerifiedTokens(0);
    tokens.remember('a.b.c', { sub: 'alice', roles: ['ROLE_USER'], exp: NOW + 60 });
    expect(tokens.payloadOf('a.b.c', NOW)).to.deep.equal({ sub: 'alice', roles: ['ROLE_USER'], exp: NOW + 60 });
    expect(tokens.payloadOf('a.b.d', NOW)).to.equal(undefined);
    expect(tokens.payloadOf('a.b.c ', NOW)).to.equal(undefined);
  });

  it('a token expires at its exp, later by the leeway, and is then forgotten', () => {
    const strict = new VerifiedTokens(0);
    strict.remember('t', { sub: 'a', exp: NOW });
    expect(strict.payloadOf('t', NOW - 1)).to.not.equal(undefined);
    expect(strict.payloadOf('t', NOW)).to.equal(undefined);
    expect(strict.payloadOf('t', NOW - 1), 'an expired entry is dropped').to.equal(undefined);
    const lenient = new VerifiedTokens(30);
    lenient.remember('t', { sub: 'a', exp: NOW });
    expect(lenient.payloadOf('t', NOW + 29)).to.not.equal(undefined);
    expect(lenient.payloadOf('t', NOW + 30)).to.equal(undefined);
  });

  it('a token is not given back before its nbf (beyond the leeway), as when the clock goes back', () => {
    const tokens = new VerifiedTokens(5);
    tokens.remember('t', { sub: 'a', nbf: NOW });
    expect(tokens.payloadOf('t', NOW - 5)).to.not.equal(undefined);
    expect(tokens.payloadOf('t', NOW - 6)).to.equal(undefined);
  });

  it('each hit is a fresh copy: changing one request’s claims changes no other’s', () => {
    const tokens = new VerifiedTokens(0);
    const payload = { sub: 'alice', roles: ['ROLE_USER'] };
    tokens.remember('t', payload);
    payload.roles.push('ROLE_ADMIN');
    const first = tokens.payloadOf('t', NOW)!;
    (first.roles as string[]).push('ROLE_ADMIN');
    expect(tokens.payloadOf('t', NOW)).to.deep.equal({ sub: 'alice', roles: ['ROLE_USER'] });
  });

  it('holds at most its capacity, the least recently used going first, and never a very long token', () => {
    const tokens = new VerifiedTokens(0, 3);
    for (const t of ['t1', 't2', 't3']) tokens.remember(t, { sub: t });
    tokens.payloadOf('t1', NOW);
    tokens.remember('t4', { sub: 't4' });
    expect(tokens.size).to.equal(3);
    expect(tokens.payloadOf('t2', NOW), 'the least recently used went out').to.equal(undefined);
    for (const t of ['t1', 't3', 't4']) expect(tokens.payloadOf(t, NOW), t).to.deep.equal({ sub: t });
    tokens.remember('x'.repeat(5000), { sub: 'long' });
    expect(tokens.payloadOf('x'.repeat(5000), NOW)).to.equal(undefined);
  });
});
