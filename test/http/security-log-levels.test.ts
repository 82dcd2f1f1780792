/**
 * How a failing security expression is logged (docs/security-expressions.md, "When an expression fails"):
 * the request's data that does not fit the expression (a missing member, a null, a type mismatch) denies and
 * is a warning (pino level 40) of one line without a stack, naming the expression and the operation; a fault
 * of the service (a voter or a provider that throws) is an error (level 50) with its stack. Every stage:
 * security before and after the read, securityPostDenormalize, securityPostValidation, property security.
 */
import { expect } from 'chai';
import { useServer } from './harness.js';
import { as, securityFixture, token } from './security-helpers.js';

interface LogLine {
  level: number;
  msg: string;
  expression?: string;
  operation?: string;
  reason?: string;
  err?: { message: string; stack: string };
}

const MERGE = { 'Content-Type': 'application/merge-patch+json' };

describe('security expression failures in the log (fixture security/log-levels.api)', () => {
  const server = useServer(securityFixture('log-levels.api'));
  let alice: string;

  /** The JSON log lines printed so far (the server logs to stderr, not a TTY: one JSON object a line). */
  const logLines = (): LogLine[] =>
    server
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as LogLine);
  /** The log lines about one expression. */
  const linesOf = (expression: string): LogLine[] => logLines().filter((l) => l.expression === expression);

  /**
   * The log lines about `expression` once one of them names `operation` with a reason matching `reason`: the
   * server writes its log on its own stderr, which reaches this process a little after the response.
   */
  async function logged(expression: string, operation: string, reason: RegExp): Promise<LogLine[]> {
    const deadline = Date.now() + 5_000;
    for (;;) {
      const lines = linesOf(expression);
      if (lines.some((l) => l.operation === operation && reason.test(l.reason ?? l.err?.message ?? ''))) return lines;
      if (Date.now() > deadline) expect.fail(`no log line for ${expression} on ${operation}: ${JSON.stringify(lines)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** The lines logged about a request's data that does not fit `expression`: warnings without a stack. */
  async function expectWarning(expression: string, operation: string, reason: RegExp): Promise<void> {
    for (const line of await logged(expression, operation, reason)) {
      expect(line.level, JSON.stringify(line)).to.equal(40);
      expect(line.err, JSON.stringify(line)).to.equal(undefined);
      expect(JSON.stringify(line)).not.to.match(/\n\s+at /);
    }
    expect(logLines().filter((l) => l.level >= 50)).to.deep.equal([]);
  }

  before(async () => {
    alice = await token({ sub: 'alice', roles: ['ROLE_USER'], claims: { team: 'blue' } });
  });

  it('security before the read: a header the request lacks is a warning; with it, 200', async () => {
    const expression = "request.headers['x-tenant'] == 'acme'";
    expect((await as(alice, server.url, 'GET', '/talks')).status).to.equal(403);
    await expectWarning(expression, 'Talk._api_/talks_get_collection', /no member 'x-tenant'/);
    const allowed = await as(alice, server.url, 'GET', '/talks', { headers: { 'X-Tenant': 'acme' } });
    expect(allowed.status, allowed.text).to.equal(200);
  });

  it('securityPostDenormalize: a body without the property the expression reads is a warning (403)', async () => {
    const expression = 'object.speaker.name == user.identifier';
    const denied = await as(alice, server.url, 'POST', '/talks', { body: { title: 'No speaker' } });
    expect(denied.status, denied.text).to.equal(403);
    await expectWarning(expression, 'Talk._api_/talks_post', /no member 'speaker'/);
    const wrongType = await as(alice, server.url, 'POST', '/talks', { body: { title: 'x', speaker: 'alice' } });
    expect(wrongType.status, wrongType.text).to.equal(403);
    await expectWarning(expression, 'Talk._api_/talks_post', /cannot read 'name' of a string/);
    const created = await as(alice, server.url, 'POST', '/talks', {
      body: { title: 'Mine', speaker: { name: 'alice', team: 'blue', public: true }, notes: 'n' },
    });
    expect(created.status, created.text).to.equal(201);
  });

  it('security after the read: a member the stored item lacks, a claim the token lacks: warnings (403)', async () => {
    const expression = 'object.speaker.team == user.claims.team';
    const created = await as(alice, server.url, 'POST', '/talks', {
      body: { title: 'Teamless', speaker: { name: 'alice' } },
    });
    expect(created.status, created.text).to.equal(201);
    const denied = await as(alice, server.url, 'GET', created.json['@id'] as string);
    expect(denied.status, denied.text).to.equal(403);
    await expectWarning(expression, 'Talk._api_/talks/{id}_get', /no member 'team'/);
    const noClaim = await token({ sub: 'alice', roles: ['ROLE_USER'] });
    expect((await as(noClaim, server.url, 'GET', '/talks/1')).status).to.equal(403);
    await expectWarning(expression, 'Talk._api_/talks/{id}_get', /no member 'team'/);
  });

  it('securityPostValidation: arithmetic on a string the body holds is a warning (403); a number passes', async () => {
    const expression = 'object.speaker.rank + 1 > 2';
    const patch = (rank: unknown) =>
      as(alice, server.url, 'PATCH', '/talks/1', { headers: MERGE, body: { speaker: { name: 'alice', rank } } });
    const denied = await patch('high');
    expect(denied.status, denied.text).to.equal(403);
    await expectWarning(expression, 'Talk._api_/talks/{id}_patch', /'\+' needs numbers, not string and number/);
    const allowed = await patch(5);
    expect(allowed.status, allowed.text).to.equal(200);
  });

  it('property security: an item the rule does not fit hides the property, with a warning', async () => {
    const expression = 'object.speaker.public == true';
    const created = await as(alice, server.url, 'POST', '/talks', {
      body: { title: 'Quiet', speaker: { name: 'alice', team: 'blue' }, notes: 'hidden' },
    });
    expect(created.status, created.text).to.equal(201);
    expect(created.json).not.to.have.property('notes');
    const r = await as(alice, server.url, 'GET', created.json['@id'] as string);
    expect(r.status, r.text).to.equal(200);
    expect(r.json).to.include({ title: 'Quiet' });
    expect(r.json).not.to.have.property('notes');
    await expectWarning(expression, 'Talk._api_/talks/{id}_get', /no member 'public'/);
  });

  it('a voter that throws is a fault of the service: an error with its stack (403)', async () => {
    const r = await as(alice, server.url, 'GET', '/talks/1/thrown');
    expect(r.status, r.text).to.equal(403);
    const [line] = await logged("is_granted('BOOM')", 'Talk.thrown', /voter failure/);
    expect(line.level).to.equal(50);
    expect(line.err?.message).to.equal('voter failure');
    expect(line.err?.stack).to.match(/\n\s+at .*voters\.mjs/);
  });

  it('a failure under a negation denies: neither a voter that throws nor data that does not fit is a grant', async () => {
    const thrown = await as(alice, server.url, 'GET', '/talks/1/not-thrown');
    expect(thrown.status, thrown.text).to.equal(403);
    const [line] = await logged("not is_granted('BOOM')", 'Talk.notThrown', /voter failure/);
    expect(line.level).to.equal(50);
    const expression = 'not (object.speaker.banned == true)';
    const denied = await as(alice, server.url, 'POST', '/unbanned-talks', { body: { title: 'No speaker' } });
    expect(denied.status, denied.text).to.equal(403);
    // (Not expectWarning: the voter failures above are errors in the same log.)
    for (const warning of await logged(expression, 'Talk.unbanned', /no member 'speaker'/))
      expect(warning.level, JSON.stringify(warning)).to.equal(40);
    const allowed = await as(alice, server.url, 'POST', '/unbanned-talks', {
      body: { title: 'Fine', speaker: { name: 'alice', banned: false } },
    });
    expect(allowed.status, allowed.text).to.equal(201);
  });

  it('a provider that throws is a fault of the service: an error with its stack (500)', async () => {
    const r = await as(alice, server.url, 'GET', '/talks/1/broken');
    expect(r.status, r.text).to.equal(500);
    const deadline = Date.now() + 5_000;
    let line: LogLine | undefined;
    while (!(line = logLines().find((l) => l.err?.message === 'provider bug')) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(line, server.output().slice(-3000)).to.not.equal(undefined);
    expect(line!.level).to.equal(50);
    expect(line!.err!.stack).to.match(/\n\s+at .*code\.mjs/);
  });
});
