/**
 * A property's `required` reaches the store's rules (a PostgreSQL NOT NULL, the start-up check of stored items) only
 * where every write operation checks it: a requirement in a validation group some write skips, or a resource with a
 * write that does not validate, may be stored absent (test/http/validation-groups.test.ts runs such a PATCH on every
 * store).
 */
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadApi } from '../../server/load-api.js';

async function requiredFields(operations: string): Promise<string[]> {
  const file = join(mkdtempSync(join(tmpdir(), 'apidsl-required-')), 'members.api');
  writeFileSync(
    file,
    [
      'resource Member {',
      '  properties {',
      '    id: int { identifier: true }',
      '    name: string { required: true }',
      '    password: string { required: { value: true, groups: ["create"] } }',
      '    age: int',
      '  }',
      `  operations { ${operations} }`,
      '}',
      '',
    ].join('\n'),
  );
  const rules = (await loadApi(file)).resource('Member')!.storage.rules ?? {};
  return Object.keys(rules).filter((field) => rules[field]!.required);
}

describe('metadata: the requirements a store may count on', () => {
  it('keeps a Default requirement every write checks, not one of a group a write skips', async () => {
    expect(
      await requiredFields('Get, Post { validationContext: { groups: ["Default", "create"] } }, Patch'),
    ).to.deep.equal(['name']);
  });

  it('keeps a grouped requirement when every write checks its group', async () => {
    expect(await requiredFields('Get, Post { validationContext: { groups: ["Default", "create"] } }')).to.deep.equal([
      'name',
      'password',
    ]);
  });

  it('drops a Default requirement when a write checks other groups only, and every one when a write does not validate', async () => {
    expect(await requiredFields('Get, Post, Put { validationContext: { groups: ["create"] } }')).to.deep.equal([]);
    expect(
      await requiredFields(
        'Get, Post { validationContext: { groups: ["Default", "create"] } }, Patch { validate: false }',
      ),
    ).to.deep.equal([]);
  });
});
