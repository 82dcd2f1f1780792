/**
 * Validation groups over real HTTP: constraints in object form belong to their groups, the
 * operation's `validationContext.groups` (default `Default`) picks which run, custom messages reach
 * the 422 violations; and `collectDenormalizationErrors` answers every type error of a body at once.
 */
import { expect } from 'chai';
import { check } from '../../grammar/checker/index.js';
import { fixture, request, useServer } from './harness.js';

const MERGE_PATCH = { 'Content-Type': 'application/merge-patch+json' };
const TYPE_CODE = 'ba785a8c-82cb-4283-967c-3cf342181b40';

describe('HTTP validation groups and collected denormalization errors', () => {
  const server = useServer(fixture('validation-groups.api'));

  it('POST runs Default and create: the grouped constraints and their custom messages', async () => {
    const r = await request(server.url, 'POST', '/members', { body: { name: 'Bartholomew', age: 12 } });
    expect(r.status, r.text).to.equal(422);
    expect(
      r.json.violations.map((v: { propertyPath: string; message: string }) => [v.propertyPath, v.message]),
    ).to.deep.equal([
      ['name', 'Five letters at most.'],
      ['password', 'A new member needs a password.'],
      ['age', 'This value should be greater than or equal to 18.'],
    ]);
    expect(r.json.detail).to.equal(
      'name: Five letters at most.\npassword: A new member needs a password.\nage: This value should be greater than or equal to 18.',
    );
  });

  it('PATCH runs Default only: no password needed, the age minimum is not checked', async () => {
    const created = await request(server.url, 'POST', '/members', { body: { name: 'Ann', password: 'pw', age: 30 } });
    expect(created.status, created.text).to.equal(201);
    const r = await request(server.url, 'PATCH', '/members/1', {
      headers: MERGE_PATCH,
      body: { age: 3, password: null },
    });
    expect(r.status, r.text).to.equal(200);
    const tooLong = await request(server.url, 'PATCH', '/members/1', {
      headers: MERGE_PATCH,
      body: { name: 'Annabelle' },
    });
    expect(tooLong.status).to.equal(422);
    expect(tooLong.json.violations[0].message).to.equal('Five letters at most.');
  });

  it('PUT runs only the adult group: the Default constraints are skipped', async () => {
    const r = await request(server.url, 'PUT', '/members/1', { body: { name: 'Annabelle', age: 3 } });
    expect(r.status, r.text).to.equal(422);
    expect(r.json.violations.map((v: { propertyPath: string }) => v.propertyPath)).to.deep.equal(['age']);
    const ok = await request(server.url, 'PUT', '/members/1', { body: { name: 'Annabelle', age: 40 } });
    expect(ok.status, ok.text).to.equal(200);
  });

  it('collectDenormalizationErrors: one 422 listing a Type violation per property', async () => {
    const r = await request(server.url, 'POST', '/samples', { body: { flag: 'yes', label: 3, count: 1.5 } });
    expect(r.status, r.text).to.equal(422);
    expect(r.headers.get('content-type')).to.match(/^application\/problem\+json/);
    expect(r.json.violations).to.deep.equal([
      { propertyPath: 'flag', message: 'This value should be of type bool.', code: TYPE_CODE },
      { propertyPath: 'label', message: 'This value should be of type string.', code: TYPE_CODE },
      { propertyPath: 'count', message: 'This value should be of type int.', code: TYPE_CODE },
    ]);
    const fine = await request(server.url, 'POST', '/samples', { body: { flag: true, label: 'x', count: 2 } });
    expect(fine.status).to.equal(201);
  });

  it('collectDenormalizationErrors: relation IRIs that are malformed or name no item join the same list', async () => {
    const member = await request(server.url, 'POST', '/members', { body: { name: 'Bo', password: 'pw', age: 20 } });
    expect(member.status, member.text).to.equal(201);
    const r = await request(server.url, 'POST', '/samples', {
      body: { flag: 'yes', owner: '/members/99', reviewers: [member.json['@id'], '/members/98', '/samples/1'] },
    });
    expect(r.status, r.text).to.equal(422);
    expect(r.json.violations).to.deep.equal([
      { propertyPath: 'flag', message: 'This value should be of type bool.', code: TYPE_CODE },
      {
        propertyPath: 'reviewers[2]',
        message: 'This value should be of type Member.',
        code: TYPE_CODE,
        hint: 'Invalid IRI "/samples/1".',
      },
      {
        propertyPath: 'owner',
        message: 'This value should be of type Member.',
        code: TYPE_CODE,
        hint: 'Item not found for "/members/99".',
      },
    ]);
    const wrongType = await request(server.url, 'POST', '/samples', { body: { owner: 7 } });
    expect(wrongType.status).to.equal(422);
    expect(wrongType.json.violations).to.deep.equal([
      {
        propertyPath: 'owner',
        message: 'This value should be of type Member.',
        code: TYPE_CODE,
        hint: 'Expected IRI or nested document for attribute "owner", "integer" given.',
      },
    ]);
    const dangling = await request(server.url, 'POST', '/samples', {
      body: { reviewers: [member.json['@id'], '/members/98'] },
    });
    expect(dangling.json.violations).to.deep.equal([
      {
        propertyPath: 'reviewers[1]',
        message: 'This value should be of type Member.',
        code: TYPE_CODE,
        hint: 'Item not found for "/members/98".',
      },
    ]);
    const ok = await request(server.url, 'POST', '/samples', {
      body: { owner: member.json['@id'], reviewers: [member.json['@id']] },
    });
    expect(ok.status, ok.text).to.equal(201);
  });
});

describe('checker: validation constraints in object form', () => {
  const source = (constraint: string): string => `resource Member {
  properties { id: int { identifier: true }, name: string { ${constraint} } }
}`;

  it('accepts value, groups and message', () => {
    expect(check(source('maxLength: { value: 5, groups: ["create"], message: "Too long" }')).all).to.deep.equal([]);
  });

  it('checks the value against the constraint and reports unknown keys and wrong groups', () => {
    const codes = (c: string): string[] => check(source(c)).all.map((d) => d.code);
    expect(codes('maxLength: { value: "five" }')).to.deep.equal(['invalid-value']);
    expect(codes('maxLength: { value: 5, group: ["a"] }')).to.deep.equal(['unknown-option']);
    expect(codes('maxLength: { value: 5, groups: "a" }')).to.deep.equal(['invalid-value']);
    expect(codes('minLength: { value: 9 }, maxLength: { value: 5 }')).to.deep.equal(['invalid-value']);
  });
});
