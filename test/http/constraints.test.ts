/**
 * The common validation constraints over real HTTP: `format` (Email, Url, Uuid, Ip, Hostname, DateTime),
 * `minItems`/`maxItems` (Count), `uniqueItems` (Unique), `multipleOf` (DivisibleBy), `exclusiveMinimum`
 * (GreaterThan) and `exclusiveMaximum` (LessThan): each answers 422 with Symfony's message and code on POST
 * and PATCH and lets a valid value through; their object form's message and groups; their OpenAPI keywords.
 */
import { expect } from 'chai';
import { fixture, get, request, useServer, type HttpResponse } from './harness.js';

type Any = any;

const MERGE_PATCH = { 'Content-Type': 'application/merge-patch+json' };
const CODES = {
  Email: 'bd79c0ab-ddba-46cc-a703-a7a4b08de310',
  Url: '57c2f299-1154-4870-89bb-ef3b1f768ad8',
  Uuid: '51120b12-a2bc-41bf-aa53-cd73daf330d0',
  Ip: 'b1b427ae-9f6f-41b0-aa9b-84511fbb3c5b',
  Hostname: '7057ffdb-0af4-4f7e-bd5e-e9acfa6d7a2d',
  DateTime: '1a9da513-2640-4f84-9b6a-4d99dcddc628',
  TooFew: 'bef8e338-6ae5-4caf-b8e2-50e7b0579e69',
  TooMany: '756b1212-697c-468d-a9ad-50dd783bb169',
  NotEqualCount: '9fe5d43f-3784-4ece-a0e1-473fc02dadbc',
  Unique: '7911c98d-b845-4da0-94b7-a8dac36bc55a',
  DivisibleBy: '6d99d6c3-1464-4ccf-bdc7-14d083cf455c',
  GreaterThan: '778b7ae0-84d3-481a-9dec-35fdb64b1d78',
  LessThan: '079d7420-2d13-460c-8756-de810eeb37d2',
};

/** A contact every constraint accepts. */
const VALID = {
  email: 'ada@example.com',
  site: 'https://example.com/docs?page=1',
  ref: '0190b6a4-6f3e-7c3a-9d2e-4a5b6c7d8e9f',
  v4: '192.0.2.7',
  v6: '2001:db8::7',
  host: 'api.example.com',
  seen: '2024-01-03T12:00:00+00:00',
  tags: ['a', 'b', 'c'],
  pair: [1, 2],
  step: 2.5,
  above: 1,
  below: 99.5,
};

/** One property's value, the violation it answers: [propertyPath, message, constraint]. */
const CASES: [Record<string, unknown>, string, string, keyof typeof CODES][] = [
  [{ email: 'ada@localhost' }, 'email', 'This value is not a valid email address.', 'Email'],
  [{ email: 'ada example.com' }, 'email', 'This value is not a valid email address.', 'Email'],
  [{ site: 'example.com/docs' }, 'site', 'This value is not a valid URL.', 'Url'],
  [{ site: 'ftp://example.com/' }, 'site', 'This value is not a valid URL.', 'Url'],
  [{ site: 'https://example.com/a b' }, 'site', 'This value is not a valid URL.', 'Url'],
  [{ ref: '0190b6a46f3e7c3a9d2e4a5b6c7d8e9f' }, 'ref', 'This is not a valid UUID.', 'Uuid'],
  [{ ref: '00000000-0000-0000-0000-000000000000' }, 'ref', 'This is not a valid UUID.', 'Uuid'],
  [{ v4: '256.1.1.1' }, 'v4', 'This value is not a valid IP address.', 'Ip'],
  [{ v4: '2001:db8::7' }, 'v4', 'This value is not a valid IP address.', 'Ip'],
  [{ v6: '192.0.2.7' }, 'v6', 'This value is not a valid IP address.', 'Ip'],
  [{ v6: 'fe80::1%eth0' }, 'v6', 'This value is not a valid IP address.', 'Ip'],
  [{ host: 'localhost' }, 'host', 'This value is not a valid hostname.', 'Hostname'],
  [{ host: 'api.example.test' }, 'host', 'This value is not a valid hostname.', 'Hostname'],
  [{ host: '-api.example.com' }, 'host', 'This value is not a valid hostname.', 'Hostname'],
  [{ seen: '2024-01-03 12:00' }, 'seen', 'This value is not a valid datetime.', 'DateTime'],
  [{ tags: [] }, 'tags', 'This collection should contain 1 element or more.', 'TooFew'],
  [{ tags: ['a', 'b', 'c', 'd'] }, 'tags', 'This collection should contain 3 elements or less.', 'TooMany'],
  [{ tags: ['a', 'b', 'a'] }, 'tags', 'This collection should contain only unique elements.', 'Unique'],
  [{ pair: [1] }, 'pair', 'This collection should contain exactly 2 elements.', 'NotEqualCount'],
  [{ pair: [1, 2, 3] }, 'pair', 'This collection should contain exactly 2 elements.', 'NotEqualCount'],
  [{ step: 2.2 }, 'step', 'This value should be a multiple of 0.5.', 'DivisibleBy'],
  [{ above: 0 }, 'above', 'This value should be greater than 0.', 'GreaterThan'],
  [{ below: 100 }, 'below', 'This value should be less than 100.', 'LessThan'],
];

const violations = (r: HttpResponse): Any[] => (r.json as Any).violations;

describe('HTTP validation constraints: formats, list sizes, uniqueness, exclusive bounds, steps', () => {
  const server = useServer(fixture('constraints.api'));
  let contact: string;

  before(async () => {
    const r = await request(server.url, 'POST', '/contacts', { body: VALID });
    expect(r.status, r.text).to.equal(201);
    contact = (r.json as Any)['@id'];
  });

  it('POST: each constraint answers 422 with its Symfony message and code, and only for its property', async () => {
    for (const [change, propertyPath, message, constraint] of CASES) {
      const r = await request(server.url, 'POST', '/contacts', { body: { ...VALID, ...change } });
      expect(r.status, JSON.stringify(change)).to.equal(422);
      expect(violations(r), JSON.stringify(change)).to.deep.equal([{ propertyPath, message, code: CODES[constraint] }]);
    }
  });

  it('PATCH: the same violations, and the stored item is unchanged', async () => {
    for (const [change, propertyPath, message, constraint] of CASES) {
      const r = await request(server.url, 'PATCH', contact, { headers: MERGE_PATCH, body: change });
      expect(r.status, JSON.stringify(change)).to.equal(422);
      expect(violations(r), JSON.stringify(change)).to.deep.equal([{ propertyPath, message, code: CODES[constraint] }]);
    }
    const stored = await get(server.url, contact);
    expect(stored.json).to.deep.include(VALID);
  });

  it('PATCH accepts valid values of every constraint', async () => {
    const change = {
      email: 'grace.hopper+navy@mail.example.org',
      site: 'http://[2001:db8::1]:8080/x',
      ref: 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11',
      v4: '10.0.0.1',
      v6: '::ffff:192.0.2.1',
      host: 'xn--bcher-kva.de',
      seen: '2025-06-01T08:30:00Z',
      tags: ['z'],
      pair: [5, 5],
      step: 0.5,
      above: 7,
      below: -3,
    };
    const r = await request(server.url, 'PATCH', contact, { headers: MERGE_PATCH, body: change });
    expect(r.status, r.text).to.equal(200);
    expect(r.json).to.deep.include(change);
  });

  it('the base constraints as a file writes them: minimum, maximum, minLength, pattern, enum and nullable: false', async () => {
    const valid = { level: 3, code: 'AB', state: 'draft', note: 'n' };
    const cases: [Record<string, unknown>, string, string][] = [
      [{ level: 0 }, 'level', 'This value should be greater than or equal to 1.'],
      [{ level: 6 }, 'level', 'This value should be less than or equal to 5.'],
      [{ code: 'A' }, 'code', 'This value is too short. It should have 2 characters or more.'],
      [{ code: 'ab' }, 'code', 'This value is not valid.'],
      [{ state: 'gone' }, 'state', 'The value you selected is not a valid choice.'],
      [{ note: null }, 'note', 'This value should not be null.'],
    ];
    for (const [change, propertyPath, message] of cases) {
      const r = await request(server.url, 'POST', '/gauges', { body: { ...valid, ...change } });
      expect(r.status, JSON.stringify(change)).to.equal(422);
      expect(
        violations(r).map((v: Any) => [v.propertyPath, v.message]),
        JSON.stringify(change),
      ).to.deep.equal([[propertyPath, message]]);
    }
    for (const body of [valid, { ...valid, level: 1, code: 'ABCDEFGH', state: 'published' }, { ...valid, level: 5 }]) {
      const r = await request(server.url, 'POST', '/gauges', { body });
      expect(r.status, r.text).to.equal(201);
    }
    const withNullRemark = await request(server.url, 'POST', '/gauges', { body: { ...valid, remark: null } });
    expect(withNullRemark.status, withNullRemark.text).to.equal(201);
  });

  it('several violations at once, in declaration order; a to-many relation is counted too', async () => {
    const other = await request(server.url, 'POST', '/contacts', { body: VALID });
    expect(other.status, other.text).to.equal(201);
    const r = await request(server.url, 'POST', '/contacts', {
      body: { ...VALID, email: 'nope', below: 200, friends: [contact, (other.json as Any)['@id']] },
    });
    expect(r.status, r.text).to.equal(422);
    expect(violations(r).map((v: Any) => [v.propertyPath, v.message])).to.deep.equal([
      ['email', 'This value is not a valid email address.'],
      ['below', 'This value should be less than 100.'],
      ['friends', 'This collection should contain 1 element or less.'],
    ]);
    const one = await request(server.url, 'POST', '/contacts', { body: { ...VALID, friends: [contact] } });
    expect(one.status, one.text).to.equal(201);
  });

  it('object form: a custom message; groups decide where a constraint runs (POST: Default and create)', async () => {
    const post = await request(server.url, 'POST', '/entries', {
      body: { mail: 'someone', codes: ['x', 'x'], size: 10 },
    });
    expect(post.status, post.text).to.equal(422);
    expect(violations(post)).to.deep.equal([
      { propertyPath: 'mail', message: 'Give a mail address.', code: CODES.Email },
      { propertyPath: 'codes', message: 'No code twice.', code: CODES.Unique },
      { propertyPath: 'size', message: 'This value should be greater than 10.', code: CODES.GreaterThan },
    ]);
    const created = await request(server.url, 'POST', '/entries', {
      body: { mail: 'someone@example.com', codes: ['x', 'y'], size: 11 },
    });
    expect(created.status, created.text).to.equal(201);
    // PATCH runs Default only: the create-group constraints are skipped, the short-form-less format still runs.
    const patched = await request(server.url, 'PATCH', (created.json as Any)['@id'], {
      headers: MERGE_PATCH,
      body: { codes: ['x', 'x'], size: 1 },
    });
    expect(patched.status, patched.text).to.equal(200);
    const badMail = await request(server.url, 'PATCH', (created.json as Any)['@id'], {
      headers: MERGE_PATCH,
      body: { mail: 'someone@' },
    });
    expect(badMail.status).to.equal(422);
    expect(violations(badMail)).to.deep.equal([
      { propertyPath: 'mail', message: 'Give a mail address.', code: CODES.Email },
    ]);
  });

  it('the OpenAPI schemas carry the JSON Schema keywords, and the example body passes them', async () => {
    const doc = (await get(server.url, '/docs.json')).json as Any;
    const props = doc.components.schemas['Contact.input'].properties;
    const keywords = (name: string, keys: string[]): Record<string, unknown> =>
      Object.fromEntries(keys.map((k) => [k, props[name][k]]));
    expect(keywords('email', ['format'])).to.deep.equal({ format: 'email' });
    expect(keywords('site', ['format'])).to.deep.equal({ format: 'uri' });
    expect(['ref', 'v4', 'v6', 'host', 'seen'].map((name) => props[name].format)).to.deep.equal([
      'uuid',
      'ipv4',
      'ipv6',
      'hostname',
      'date-time',
    ]);
    expect(keywords('tags', ['minItems', 'maxItems', 'uniqueItems'])).to.deep.equal({
      minItems: 1,
      maxItems: 3,
      uniqueItems: true,
    });
    expect(props.friends.maxItems).to.equal(1);
    expect(keywords('step', ['multipleOf'])).to.deep.equal({ multipleOf: 0.5 });
    expect(keywords('above', ['exclusiveMinimum'])).to.deep.equal({ exclusiveMinimum: 0 });
    expect(keywords('below', ['exclusiveMaximum'])).to.deep.equal({ exclusiveMaximum: 100 });
    const groupedSchema = doc.components.schemas['Entry.input'].properties;
    expect([
      groupedSchema.mail.format,
      groupedSchema.codes.uniqueItems,
      groupedSchema.size.exclusiveMinimum,
    ]).to.deep.equal(['email', true, 10]);
    const example = doc.paths['/contacts'].post.requestBody.content['application/ld+json'].example;
    expect([example.email, example.dozen, example.depth, example.pair]).to.deep.equal([
      'user@example.com',
      12,
      -6,
      [1, 1],
    ]);
    const r = await request(server.url, 'POST', '/contacts', { body: example });
    expect(r.status, r.text).to.equal(201);
  });
});
