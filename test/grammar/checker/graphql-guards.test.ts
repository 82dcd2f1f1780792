/**
 * The checker on GraphQL operations less guarded than their REST twins (grammar/checker/rules/graphql-guards.ts):
 * a warning where an operation's own security leaves a stage its twin guards unguarded (absent, or `true`), at
 * the option that says so; nothing for an operation that takes its twin's, and nothing while GraphQL is off.
 */
import { expect } from 'chai';
import { findings, type Finding } from '../../support/findings.js';

const JWT =
  'config {\n  graphql { enabled: ENABLED }\n' +
  '  security { jwt { secret_env: "S", issuer: "https://id.example.test", audience: "a" } }\n}\n';

/** Product with guarded REST operations and this graphql block. */
const product = (graphql: string | undefined, { enabled = true, rest = '' } = {}): string =>
  JWT.replace('ENABLED', String(enabled)) +
  'resource Product {\n  properties { id: int { identifier: true }, price: number, owner: string }\n' +
  '  operations {\n    Get\n    Post { securityPostDenormalize: "object.owner == user.identifier" }\n' +
  `    ${rest || 'Patch { security: "object.owner == user.identifier" }'}\n` +
  '    Delete { security: "is_granted(\'ROLE_ADMIN\')" }\n  }\n' +
  `${graphql === undefined ? '' : `  graphql {\n    ${graphql}\n  }\n`}}\n`;

const lessGuarded = (text: string): Finding[] => findings(text).filter((f) => f.code === 'graphql-less-guarded');

describe('checker: a GraphQL operation less guarded than its REST twin', () => {
  it('warns where the operation’s own security is "true" at a stage its twin guards, at that option', () => {
    const [found, ...rest] = lessGuarded(product('Mutation update { security: "true" }'));
    expect(rest).to.deep.equal([]);
    expect(found).to.include({ severity: 'warning', at: 'security' });
    expect(found.message).to.equal(
      "the GraphQL operation 'updateProduct' is less guarded than its REST twin Patch '_api_/products/{id}_patch': " +
        "it has no security where Patch has one, so what REST refuses GraphQL allows (remove its security options to take Patch's, or guard it as Patch does)",
    );
  });

  it('warns where the operation guards another stage and leaves out the twin’s, at its name', () => {
    const found = lessGuarded(
      product(
        'Mutation create { security: "is_granted(\'ROLE_USER\')" }\n    DeleteMutation delete { securityPostValidation: "true" }',
      ),
    );
    expect(found.map((f) => [f.at, f.message.match(/has no (\S+)/)![1]])).to.deep.equal([
      ['create', 'securityPostDenormalize'],
      ['delete', 'security'],
    ]);
  });

  it('mirrors update on Put when there is no Patch', () => {
    const text = product('Mutation update { security: "true" }', {
      rest: 'Put { security: "is_granted(\'ROLE_EDITOR\')" }',
    });
    expect(lessGuarded(text).map((f) => f.message)).to.satisfy(
      (m: string[]) => m.length === 1 && m[0].includes('twin Put'),
    );
  });

  it('says nothing for an operation without security of its own, one as guarded, or with GraphQL off', () => {
    expect(lessGuarded(product(undefined))).to.deep.equal([]);
    expect(lessGuarded(product('Mutation update\n    DeleteMutation delete { securityMessage: "no" }'))).to.deep.equal(
      [],
    );
    // Another expression at the same stage is not compared.
    expect(lessGuarded(product('Mutation update { security: "is_granted(\'ROLE_USER\')" }'))).to.deep.equal([]);
    expect(lessGuarded(product('Query { security: "true" }'))).to.deep.equal([]); // Get is not guarded
    expect(lessGuarded(product('Mutation update { security: "true" }', { enabled: false }))).to.deep.equal([]);
  });
});
