/**
 * No inert option: every option and constraint of the catalogue either has a run-time effect that a
 * named test shows, or the catalogue marks it (`effect`: compatibility or unsupported) and the checker
 * says so. Adding an option with neither a row here (a test file that exercises it) nor a marker fails.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { CONSTRAINTS, OPTIONS } from '../../../grammar/catalogue/index.js';
import { check } from '../../../grammar/checker/index.js';
import { COMPATIBILITY_HINT, UNSUPPORTED_WARNING } from '../../../grammar/checker/rules/effects.js';
import { fromRoot } from '../../support/paths.js';

/**
 * Where each effective option's effect is shown: the test file, and the fixture it serves when the option is
 * written there. Both must name the option.
 */
const SHOWN_BY: Record<string, string[]> = {
  links: ['test/http/links.test.ts', 'test/fixtures/http/links.api'],
  paginationEnabled: ['test/http/pagination-options.test.ts'],
  paginationItemsPerPage: ['test/http/pagination-options.test.ts'],
  paginationMaximumItemsPerPage: ['test/http/pagination-options.test.ts'],
  paginationPartial: ['test/http/pagination-partial.test.ts'],
  paginationClientEnabled: ['test/http/pagination-options.test.ts'],
  paginationClientItemsPerPage: ['test/http/pagination-options.test.ts'],
  paginationClientPartial: ['test/http/pagination-options.test.ts'],
  paginationViaCursor: ['test/http/pagination-cursor.test.ts'],
  order: ['test/http/filters-order.test.ts'],
  description: ['test/openapi/document.test.ts'],
  normalizationContext: ['test/http/groups.test.ts', 'test/fixtures/http/groups.api'],
  denormalizationContext: ['test/http/groups.test.ts', 'test/fixtures/http/groups.api'],
  collectDenormalizationErrors: ['test/http/validation-groups.test.ts', 'test/fixtures/http/validation-groups.api'],
  deprecationReason: ['test/openapi/document.test.ts', 'test/openapi/fixtures/methods.api'],
  filters: ['test/http/filters-range.test.ts'],
  validationContext: ['test/http/validation-groups.test.ts', 'test/fixtures/http/validation-groups.api'],
  input: ['test/http/routing-options.test.ts', 'test/fixtures/http/routing.api'],
  output: ['test/http/pipeline.test.ts', 'test/fixtures/http/pipeline.api'],
  read: ['test/http/pipeline.test.ts', 'test/fixtures/http/pipeline.api'],
  deserialize: ['test/http/pipeline.test.ts', 'test/fixtures/http/pipeline.api'],
  validate: ['test/http/pipeline.test.ts', 'test/fixtures/http/pipeline.api'],
  write: ['test/http/pipeline.test.ts', 'test/fixtures/http/pipeline.api'],
  serialize: ['test/http/routing-options.test.ts', 'test/fixtures/http/routing.api'],
  priority: ['test/http/routing-options.test.ts', 'test/fixtures/http/routing.api'],
  name: ['test/http/mutators.test.ts'],
  provider: ['test/http/pagination-providers.test.ts', 'test/fixtures/pagination/providers.api'],
  processor: ['test/http/pipeline.test.ts'],
  strictQueryParameterValidation: ['test/http/parameters-strict.test.ts', 'test/fixtures/parameters/strict.api'],
  uriTemplate: ['test/http/iris.test.ts', 'test/fixtures/http/iris.api'],
  itemUriTemplate: ['test/http/iris.test.ts', 'test/fixtures/http/iris.api'],
  method: ['test/http/query-method.test.ts'],
  requirements: ['test/http/iris.test.ts', 'test/fixtures/http/places.api'],
  defaults: ['test/http/routing-options.test.ts', 'test/fixtures/http/routing.api'],
  schemes: ['test/http/routing-options.test.ts', 'test/fixtures/http/routing.api'],
  host: ['test/http/headers.test.ts'],
  status: ['test/http/status.test.ts'],
  controller: ['test/http/controllers.test.ts'],
  allowCreate: ['test/http/crud.test.ts'],
  bulk: ['test/http/bulk.test.ts', 'test/fixtures/bulk/bulk.api'],
  throwOnNotFound: ['test/http/iris.test.ts', 'test/fixtures/http/places.api'],
  parameters: ['test/http/parameters-strict.test.ts'],
  routePrefix: ['test/http/iris.test.ts'],
  shortName: ['test/http/routing-options.test.ts', 'test/fixtures/http/routing.api'],
  urlGenerationStrategy: ['test/http/url-generation.test.ts', 'test/fixtures/http/urls.api'],
  securityMessage: ['test/http/security-stages.test.ts', 'test/fixtures/security/books.api'],
  securityPostDenormalizeMessage: ['test/http/security-stages.test.ts', 'test/fixtures/security/books.api'],
  securityPostValidation: ['test/http/security-stages.test.ts', 'test/fixtures/security/books.api'],
  securityPostValidationMessage: ['test/http/security-stages.test.ts', 'test/fixtures/security/books.api'],
  mercure: ['test/http/mercure.test.ts', 'test/fixtures/http/mercure.api'],
  messenger: ['test/http/messenger-embedded.test.ts', 'test/http/messenger-fixture.ts'],
  cacheHeaders: ['test/http/http-cache.test.ts', 'test/fixtures/http/http-cache.api'],
  rateLimit: ['test/http/rate-limit.test.ts', 'test/fixtures/rate-limit/limits.api'],
  mcp: ['test/http/mcp.test.ts', 'test/fixtures/http/mcp.api'],
  elasticsearch: ['test/http/elasticsearch.test.ts', 'test/fixtures/elasticsearch/books.api'],
  stateOptions: ['test/http/elasticsearch.test.ts', 'test/fixtures/elasticsearch/books.api'],
  // Constraints.
  identifier: ['test/http/links.test.ts', 'test/fixtures/http/links.api'],
  required: ['test/http/validation-groups.test.ts', 'test/fixtures/http/validation-groups.api'],
  nullable: ['test/pipeline/representation/denormalize.test.ts'],
  readOnly: ['test/pipeline/representation/denormalize.test.ts'],
  writeOnly: ['test/http/persistence.test.ts'],
  default: ['test/pipeline/representation/denormalize.test.ts'],
  minimum: ['test/http/validation-groups.test.ts', 'test/fixtures/http/validation-groups.api'],
  maximum: ['test/pipeline/validation/constraints.test.ts'],
  minLength: ['test/pipeline/validation/constraints.test.ts'],
  maxLength: ['test/http/validation-groups.test.ts', 'test/fixtures/http/validation-groups.api'],
  pattern: ['test/pipeline/validation/constraints.test.ts'],
  enum: ['test/pipeline/validation/constraints.test.ts'],
  format: ['test/http/constraints.test.ts', 'test/fixtures/http/constraints.api'],
  exclusiveMinimum: ['test/http/constraints.test.ts', 'test/fixtures/http/constraints.api'],
  exclusiveMaximum: ['test/http/constraints.test.ts', 'test/fixtures/http/constraints.api'],
  multipleOf: ['test/http/constraints.test.ts', 'test/fixtures/http/constraints.api'],
  minItems: ['test/http/constraints.test.ts', 'test/fixtures/http/constraints.api'],
  maxItems: ['test/http/constraints.test.ts', 'test/fixtures/http/constraints.api'],
  uniqueItems: ['test/http/constraints.test.ts', 'test/fixtures/http/constraints.api'],
  groups: ['test/http/groups.test.ts', 'test/fixtures/http/groups.api'],
  throwOnAccessDenied: ['test/http/security-properties.test.ts', 'test/fixtures/security/books.api'],
  onDelete: ['test/http/referential-actions.test.ts', 'test/fixtures/http/referential.api'],
  onUpdate: ['test/http/server-values.test.ts', 'test/fixtures/http/server-values.api'],
  maxDepth: ['test/http/embedding.test.ts', 'test/fixtures/http/embedding.api'],
  // Operation options and property constraints at once (the same names).
  security: ['test/http/security-stages.test.ts', 'test/fixtures/security/books.api'],
  securityPostDenormalize: ['test/http/security-stages.test.ts', 'test/fixtures/security/books.api'],
};

/**
 * GraphQL operations' own options, shown by the GraphQL suite: each by a test of test/http/graphql.test.ts named
 * "<option> on a GraphQL operation: …".
 */
const SHOWN_BY_GRAPHQL_SUITE = ['resolver', 'args', 'extraArgs', 'nested', 'paginationType'];
const GRAPHQL_SUITE = 'test/http/graphql.test.ts';
for (const name of SHOWN_BY_GRAPHQL_SUITE) SHOWN_BY[name] = [GRAPHQL_SUITE];
const ENTRIES = [
  ...OPTIONS.map((o) => ({ name: o.name, effect: o.effect })),
  ...CONSTRAINTS.map((c) => ({ name: c.name, effect: undefined })),
];

describe('no inert option', () => {
  it('every option and constraint either has a test showing its effect or a catalogue marker', () => {
    const orphans = ENTRIES.filter((e) => (!e.effect || e.effect.on === 'operation') && !SHOWN_BY[e.name]).map(
      (e) => e.name,
    );
    expect(orphans, 'options with neither a covering test nor an effect marker').to.deep.equal([]);
  });

  it('every named test exists and writes the option, or serves the named fixture that writes it', () => {
    const writes = (file: string, word: string): boolean =>
      new RegExp(`\\b${word.replace(/[.]/g, '\\.')}\\b`).test(readFileSync(fromRoot(file), 'utf8'));
    for (const [name, [test, fixture]] of Object.entries(SHOWN_BY)) {
      expect(
        ENTRIES.some((e) => e.name === name),
        `${name} is not in the catalogue`,
      ).to.equal(true);
      if (fixture === undefined) expect(writes(test, name), `${test} for ${name}`).to.equal(true);
      else {
        expect(writes(fixture, name), `${fixture} for ${name}`).to.equal(true);
        expect(writes(test, name) || writes(test, fixture.split('/').pop()!), `${test} for ${name}`).to.equal(true);
      }
    }
  });

  it('the GraphQL suite names a test "<option> on a GraphQL operation: …" for each of its options', () => {
    const suite = readFileSync(fromRoot(GRAPHQL_SUITE), 'utf8');
    for (const name of SHOWN_BY_GRAPHQL_SUITE)
      expect(suite, name).to.match(new RegExp(`['"\`]${name} on a GraphQL operation: `));
  });

  it('a marked option is not also listed as effective (except where the marker is for operations only)', () => {
    for (const o of OPTIONS) if (o.effect && !o.effect.on) expect(SHOWN_BY[o.name], o.name).to.equal(undefined);
  });

  it('the checker gives the hint or the warning for every marked option, where it is allowed', () => {
    for (const o of OPTIONS.filter((x) => x.effect)) {
      const onResource = o.placement.resource && !o.effect!.on;
      const source = onResource
        ? `resource Book { ${o.name}: ${sample(o.name)}\n properties { id: int } }`
        : `resource Book { properties { id: int }\n operations { Get { ${o.name}: ${sample(o.name)} } } }`;
      const found = check(source).all.filter(
        (d) => d.code === (o.effect!.kind === 'compatibility' ? 'no-effect' : 'not-supported'),
      );
      expect(found, `${o.name}: ${JSON.stringify(check(source).all)}`).to.have.length(1);
      expect(found[0].severity).to.equal(o.effect!.kind === 'compatibility' ? 'hint' : 'warning');
      expect(found[0].message).to.contain(
        o.effect!.kind === 'compatibility' ? COMPATIBILITY_HINT : UNSUPPORTED_WARNING,
      );
    }
  });

  it('link fields apidsl does not implement: a warning each, and an error for a link guard never enforced', () => {
    const link =
      '{ parameterName: "authorId", fromClass: "Author", toProperty: "author", toClass: "Book", ' +
      'compositeIdentifier: false, expandedValue: "x", security: "is_granted(\'ROLE_ADMIN\')", securityMessage: "No." }';
    const source =
      'config { security { jwt { secret_env: "S" } } }\n' +
      'resource Author { properties { id: int { identifier: true } } }\n' +
      'resource Book {\n  properties { id: int { identifier: true }, author: Author }\n' +
      `  operations { GetCollection { uriTemplate: "/authors/{authorId}/books", links: [${link}] } }\n}\n`;
    const found = check(source)
      .all.filter((d) => ['not-supported', 'unsupported-guard'].includes(d.code))
      .map((d) => [d.code, d.severity, source.slice(d.range.start, d.range.end)]);
    expect(found).to.deep.equal([
      ['not-supported', 'warning', 'toClass'],
      ['not-supported', 'warning', 'compositeIdentifier'],
      ['not-supported', 'warning', 'expandedValue'],
      ['unsupported-guard', 'error', 'security'],
      ['not-supported', 'warning', 'securityMessage'],
    ]);
  });

  it('no hint for an effective option', () => {
    expect(check('resource Book { paginationItemsPerPage: 5\n properties { id: int } }').all).to.deep.equal([]);
  });
});

/** A value of the right type for each marked option. */
function sample(name: string): string {
  const spec = OPTIONS.find((o) => o.name === name)!;
  switch (spec.type.kind) {
    case 'bool':
      return 'true';
    case 'int':
      return '1';
    case 'string':
      return '"x"';
    case 'enum':
      return `"${spec.type.values[0]}"`;
    case 'oneOf':
      return 'true';
    default:
      return '{}';
  }
}
