/**
 * The client's address behind reverse proxies (server/protocol/client-address.ts): `X-Forwarded-For` believed
 * only from a trusted peer, walked from the right past trusted proxies (addresses and CIDR ranges, IPv4 and
 * IPv6), IPv4 peers of dual-stack sockets named as IPv4.
 */
import { expect } from 'chai';
import { clientAddress, plainAddress, trustedProxies } from '../../server/protocol/client-address.js';

describe('protocol: the client address', () => {
  const trusted = trustedProxies(['127.0.0.1', '10.0.0.0/8', 'fd00::/8']);

  it('is the peer when the peer is no trusted proxy, whatever X-Forwarded-For says', () => {
    expect(clientAddress('192.0.2.1', '203.0.113.1', trusted)).to.equal('192.0.2.1');
    expect(clientAddress('192.0.2.1', undefined, trusted)).to.equal('192.0.2.1');
  });

  it('behind trusted proxies, is the right-most address none of them holds', () => {
    expect(clientAddress('127.0.0.1', '203.0.113.1', trusted)).to.equal('203.0.113.1');
    expect(clientAddress('127.0.0.1', '198.51.100.9, 203.0.113.1, 10.1.2.3', trusted)).to.equal('203.0.113.1');
    expect(clientAddress('::ffff:127.0.0.1', ['203.0.113.1', 'fd00::5'], trusted)).to.equal('203.0.113.1');
    // Only trusted proxies in the header: the left-most is the client.
    expect(clientAddress('127.0.0.1', '10.0.0.1, 10.0.0.2', trusted)).to.equal('10.0.0.1');
    // A trusted peer that sent no header is the client itself.
    expect(clientAddress('127.0.0.1', undefined, trusted)).to.equal('127.0.0.1');
  });

  it('trusts nothing when no proxy is listed, and names dual-stack IPv4 peers as IPv4', () => {
    expect(clientAddress('127.0.0.1', '203.0.113.1', trustedProxies([]))).to.equal('127.0.0.1');
    expect(plainAddress('::ffff:192.0.2.7')).to.equal('192.0.2.7');
    expect(plainAddress('::1')).to.equal('::1');
    expect(trusted('10.255.0.1')).to.equal(true);
    expect(trusted('11.0.0.1')).to.equal(false);
    expect(trusted('fd12::1')).to.equal(true);
    expect(trusted('not an address')).to.equal(false);
  });
});
