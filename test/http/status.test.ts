/**
 * Success statuses (docs/behaviour.md, "The request pipeline": Status): runtime
 * `_api_response_status` > operation `status` > method default (POST 201, DELETE 204, others 200).
 * Also the places.api processor that answers 200 to a POST through the runtime attribute.
 */
import { expect } from 'chai';
import { fixture, request, useServer } from './harness.js';

describe('HTTP statuses (fixture status.api)', () => {
  const server = useServer(fixture('status.api'));

  it('default POST answers 201 with Location', async () => {
    const r = await request(server.url, 'POST', '/tickets', { body: { subject: 'default' } });
    expect(r.status, r.text).to.equal(201);
    expect(r.headers.get('location')).to.equal('/tickets/1');
    expect(r.json).to.deep.equal({
      '@context': '/contexts/Ticket',
      '@id': '/tickets/1',
      '@type': 'Ticket',
      id: 1,
      subject: 'default',
    });
  });

  it('a processor setting _api_response_status 202 wins over status: 201', async () => {
    const r = await request(server.url, 'POST', '/tickets/accept', { body: { subject: 'later' } });
    expect(r.status, r.text).to.equal(202);
    expect(r.json['@type']).to.equal('Ticket');
    expect(r.json.subject).to.equal('later');
    // Headers follow the same status, so no Location on a 202.
    expect(r.headers.get('location')).to.equal(null);
    // The processor called the default write: the ticket is stored.
    const g = await request(server.url, 'GET', r.json['@id']);
    expect(g.status).to.equal(200);
    expect(g.json.subject).to.equal('later');
  });

  it('the runtime status affects that request only', async () => {
    const r = await request(server.url, 'POST', '/tickets', { body: { subject: 'after the 202' } });
    expect(r.status, r.text).to.equal(201);
    const again = await request(server.url, 'POST', '/tickets/accept', { body: { subject: 'later again' } });
    expect(again.status, again.text).to.equal(202);
  });

  it('status: 200 on a Post answers 200, without Location, and stores the item', async () => {
    const r = await request(server.url, 'POST', '/tickets/sync', { body: { subject: 'now' } });
    expect(r.status, r.text).to.equal(200);
    expect(r.headers.get('location')).to.equal(null);
    expect(r.json['@type']).to.equal('Ticket');
    expect(r.json.subject).to.equal('now');
    const g = await request(server.url, 'GET', r.json['@id']);
    expect(g.status).to.equal(200);
  });

  it('a static status does not change validation errors (422)', async () => {
    const r = await request(server.url, 'POST', '/tickets/sync', { body: {} });
    expect(r.status).to.equal(422);
  });

  it('GET answers 200 and DELETE answers 204', async () => {
    expect((await request(server.url, 'GET', '/tickets/1')).status).to.equal(200);
    expect((await request(server.url, 'GET', '/tickets')).status).to.equal(200);
    const d = await request(server.url, 'DELETE', '/tickets/1');
    expect(d.status).to.equal(204);
    expect(d.text).to.equal('');
  });
});
