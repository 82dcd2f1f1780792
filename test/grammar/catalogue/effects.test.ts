/**
 * No inert option: every option and constraint of the catalogue either has a run-time effect that a
 * named test shows, or the catalogue marks it (`effect`: compatibility or unsupported) and the checker
 * says so. Adding an option with neither a row here (tests that show its effect, by file and title) nor a
 * marker fails, and so does a row naming a test that is not there (renamed or removed).
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { CONSTRAINTS, OPTIONS } from '../../../grammar/catalogue/index.js';
import { check } from '../../../grammar/checker/index.js';
import { COMPATIBILITY_HINT, UNSUPPORTED_WARNING } from '../../../grammar/checker/rules/effects.js';
import { fromRoot } from '../../support/paths.js';

/** Titles of test/http/constraints.test.ts that several constraints share. */
const CONSTRAINT_CASES =
  'POST: each constraint answers 422 with its Symfony message and code, and only for its property';
const CONSTRAINTS_FROM_THE_FILE =
  'the base constraints as a file writes them: minimum, maximum, minLength, pattern, enum and nullable: false';

/**
 * Where each effective option's effect is shown: the tests (file, exact title) that write the option, in a
 * fixture or in the test, and assert what it changes. The checks below hold each named test to exist under that
 * title in that file; that the test shows the option is what whoever adds a row vouches for (a row names a test
 * of the option's effect, never one that merely mentions the option).
 */
const SHOWN_BY: Record<string, [file: string, title: string][]> = {
  links: [
    ['test/http/links.test.ts', 'links with toProperty bind another variable name to the relation'],
    ['test/http/links.test.ts', 'links with fromProperty: the items the parent lists'],
  ],
  paginationEnabled: [['test/http/pagination-options.test.ts', 'resource false: all 10, totalItems 10, no view']],
  paginationItemsPerPage: [
    ['test/http/pagination-options.test.ts', 'resource: 2 per page over the global 4'],
    ['test/http/pagination-options.test.ts', 'operation: 5 per page over the resource 2'],
  ],
  paginationMaximumItemsPerPage: [
    ['test/http/pagination-options.test.ts', 'resource: ?itemsPerPage=10 clamped to 8 (over the global 6)'],
    ['test/http/pagination-options.test.ts', 'operation: ?itemsPerPage=10 clamped to 3 (over the resource 8)'],
  ],
  paginationPartial: [
    ['test/http/pagination-partial.test.ts', 'resource paginationPartial: true runs no count query, on any page'],
    ['test/http/pagination-options.test.ts', 'resource: partial (no totalItems, no first/last)'],
  ],
  paginationClientEnabled: [
    ['test/http/pagination-options.test.ts', 'resource false: ?pagination=false is ignored and kept in the links'],
    ['test/http/pagination-options.test.ts', 'operation true over the resource false: ?pagination=false lists all'],
  ],
  paginationClientItemsPerPage: [
    ['test/http/pagination-options.test.ts', 'resource false: ?itemsPerPage=2 is ignored and kept in the links'],
    [
      'test/http/pagination-options.test.ts',
      'operation true over the resource false: ?itemsPerPage=2 gives 2 per page',
    ],
  ],
  paginationClientPartial: [
    [
      'test/http/pagination-options.test.ts',
      'resource false: ?partial=1 is ignored (totalItems, first/last) and kept in the links',
    ],
    ['test/http/pagination-options.test.ts', 'operation true over the resource false: ?partial=1 is partial'],
  ],
  paginationViaCursor: [
    ['test/http/pagination-cursor.test.ts', 'GET /events: 10, 9, 8 and next /events?id%5Blt%5D=8'],
    [
      'test/http/pagination-cursor.test.ts',
      'walking next visits all 60 once each, in score order, ties in one identifier order; 15 full pages',
    ],
  ],
  order: [['test/http/routing-options.test.ts', 'order: the default sort of a listing the client does not sort']],
  description: [
    ['test/openapi/document.test.ts', 'marks deprecated operations and gives the reason'],
    [
      'test/http/mutators.test.ts',
      "the resource mutator's description is the one documented (Hydra API documentation)",
    ],
  ],
  normalizationContext: [
    ['test/http/groups.test.ts', 'GET item in JSON-LD and JSON: the read group, @id and @type always'],
  ],
  denormalizationContext: [
    ['test/http/groups.test.ts', 'POST shows the read group only and ignores properties outside the write group'],
    ['test/http/groups.test.ts', 'PATCH with its own write group sets price and ignores title'],
  ],
  collectDenormalizationErrors: [
    [
      'test/http/validation-groups.test.ts',
      'collectDenormalizationErrors: one 422 listing a Type violation per property',
    ],
  ],
  deprecationReason: [['test/openapi/document.test.ts', 'marks deprecated operations and gives the reason']],
  filters: [['test/http/filters-order.test.ts', 'the listing without the order filter ignores order[…]']],
  validationContext: [
    [
      'test/http/validation-groups.test.ts',
      'POST runs Default and create: the grouped constraints and their custom messages',
    ],
    ['test/http/validation-groups.test.ts', 'PUT runs only the adult group: the Default constraints are skipped'],
  ],
  input: [['test/http/routing-options.test.ts', 'input: false reads no request body: the item keeps its values']],
  output: [
    [
      'test/http/pipeline.test.ts',
      'output: false: a success without body and without Content-Type, and the item is stored',
    ],
  ],
  read: [
    ['test/http/pipeline.test.ts', 'read: false on a Get with a controller: no lookup, so no 404 for an unknown id'],
  ],
  deserialize: [['test/http/pipeline.test.ts', 'deserialize: false: the processor does not receive the decoded body']],
  validate: [['test/http/pipeline.test.ts', 'validate: false stores the same invalid body']],
  write: [['test/http/pipeline.test.ts', 'write: false on a Post answers with the item but stores nothing']],
  serialize: [['test/http/routing-options.test.ts', 'serialize: false stores the item and answers without a body']],
  priority: [
    [
      'test/http/routing-options.test.ts',
      'priority: the higher-priority route wins over a literal one matching the same path',
    ],
  ],
  name: [
    ['test/http/mutators.test.ts', 'name: an operation named by the option is the one an operation mutator selects'],
  ],
  provider: [
    ['test/http/pagination-providers.test.ts', 'a plain array: not paginated, no view, totalItems = its length'],
    ['test/http/iris.test.ts', "the sub-resource GET /places/5/weather answers 200 with the provider's data"],
  ],
  processor: [['test/http/status.test.ts', 'a processor setting _api_response_status 202 wins over status: 201']],
  strictQueryParameterValidation: [
    ['test/http/parameters-strict.test.ts', 'rejects an unknown parameter with 400 "Parameter "x" not supported"'],
  ],
  uriTemplate: [
    [
      'test/http/iris.test.ts',
      'members of /brands/renault/cars follow the itemUriTemplate, and only renault cars are listed',
    ],
  ],
  itemUriTemplate: [['test/http/iris.test.ts', 'the item route named by itemUriTemplate answers with that IRI']],
  method: [
    [
      'test/http/controllers.test.ts',
      "POST /articles/1/publish answers 200 with the controller's data serialized as an Article",
    ],
  ],
  requirements: [['test/http/iris.test.ts', 'GET /places/abc does not match the requirement: 404']],
  defaults: [['test/http/routing-options.test.ts', 'defaults: a trailing placeholder with a default may be left out']],
  schemes: [['test/http/routing-options.test.ts', 'schemes: a route limited to https does not answer over http']],
  host: [
    [
      'test/http/routing-options.test.ts',
      'host: a route answers only for a Host its pattern matches, placeholders included',
    ],
  ],
  status: [['test/http/status.test.ts', 'status: 200 on a Post answers 200, without Location, and stores the item']],
  controller: [
    [
      'test/http/controllers.test.ts',
      "POST /articles/1/publish answers 200 with the controller's data serialized as an Article",
    ],
  ],
  allowCreate: [
    [
      'test/http/crud.test.ts',
      'PUT on a missing id with allowCreate answers 201 and the item takes the identifier of the URI',
    ],
  ],
  bulk: [
    [
      'test/http/bulk.test.ts',
      'creates every item of a JSON array: 201, a Hydra Collection of the members, no Location',
    ],
    ['test/http/bulk.test.ts', 'keeps the answer of an operation without bulk: an array body is a 400, NDJSON a 415'],
  ],
  requireIfMatch: [
    [
      'test/http/conditional-writes.test.ts',
      'requireIfMatch: a write without If-Match answers 428 and stores nothing; with it, it applies',
    ],
    [
      'test/http/conditional-writes.test.ts',
      'GraphQL update and delete mutations take ifMatch: a stale one is an error with status 412',
    ],
  ],
  throwOnNotFound: [
    ['test/http/iris.test.ts', 'throwOnNotFound: false on a Get whose provider returns null: no 404'],
    ['test/http/iris.test.ts', 'throwOnNotFound: true on a POST with read: true: an unknown id answers 404'],
  ],
  parameters: [
    [
      'test/http/parameters-strict.test.ts',
      'a missing required parameter is a 422 NotBlank violation; present, it filters',
    ],
    [
      'test/http/security-filters.test.ts',
      "a parameter's security denies with 401 to anonymous, 403 and its message to a user; staff filter",
    ],
  ],
  // The resource option and the property constraint (the same name).
  renamedFrom: [
    ['test/cli/diff.test.ts', 'renamedFrom on a property: a rename, whose SQL moves the stored values to the new name'],
    [
      'test/cli/diff.test.ts',
      'renamedFrom on a resource: a rename, whose export and import move the items to the new collection',
    ],
  ],
  routePrefix: [
    ['test/http/iris.test.ts', 'POST /geo/places creates a place whose IRI carries the prefix'],
    ['test/http/iris.test.ts', 'the unprefixed paths do not exist'],
  ],
  shortName: [['test/http/routing-options.test.ts', 'a resource shortName names its routes, @type and context']],
  urlGenerationStrategy: [
    ['test/http/url-generation.test.ts', "0: absolute URLs from the request's Host, in @id, @context and Location"],
    [
      'test/http/url-generation.test.ts',
      '2: paths relative to the request path in @id, @context, relations and Location',
    ],
  ],
  scope: [
    ['test/http/scopes.test.ts', 'lists and counts only the items in the caller’s read scope'],
    ['test/http/scopes.test.ts', "takes an operation's own scope in place of the resource's"],
    ['test/http/scopes.test.ts', 'refuses a write outside the write scope with 403 and scopeMessage, storing nothing'],
  ],
  scopeMessage: [
    ['test/http/scopes.test.ts', 'refuses a write outside the write scope with 403 and scopeMessage, storing nothing'],
  ],
  securityMessage: [
    ['test/http/security-stages.test.ts', "an operation's own security wins over the resource's, with its message"],
  ],
  securityPostDenormalizeMessage: [
    [
      'test/http/security-stages.test.ts',
      'object is the unsaved item: a user may only create a book they own (nothing stored otherwise)',
    ],
  ],
  securityPostValidation: [
    [
      'test/http/security-stages.test.ts',
      'a 422 wins over it; a valid body is then denied with its message (and not stored)',
    ],
  ],
  securityPostValidationMessage: [
    [
      'test/http/security-stages.test.ts',
      'a 422 wins over it; a valid body is then denied with its message (and not stored)',
    ],
  ],
  mercure: [
    [
      'test/http/mercure.test.ts',
      'a subscriber sees create, update and delete in order, each as the GET document (delete as {"@id"})',
    ],
    [
      'test/http/mercure.test.ts',
      'announces the hub with Link rel="mercure" on responses of publishing resources only',
    ],
  ],
  messenger: [
    [
      'test/http/messenger-embedded.test.ts',
      'answers 202 with the item and stores nothing itself; a consumer process handles it',
    ],
    ['test/http/messenger-embedded.test.ts', 'messenger: "input" hands the request body as received to the handler'],
  ],
  cacheHeaders: [
    [
      'test/http/http-cache.test.ts',
      "an operation's cacheHeaders override the defaults: private leaves s-maxage out, stale_while_revalidate is sent, etag: false sends no ETag",
    ],
  ],
  rateLimit: [
    [
      'test/http/rate-limit.test.ts',
      'does not limit an operation with rateLimit: false, nor send RateLimit headers there',
    ],
    ['test/http/rate-limit.test.ts', 'serves the client again once the window is over'],
    [
      'test/http/rate-limit.test.ts',
      'for: "anonymous" limits anonymous callers only; for: "authenticated" limits users only',
    ],
  ],
  mcp: [
    [
      'test/http/mcp.test.ts',
      'lists one tool per exposed operation, named after its kind and resource, none with mcp: false',
    ],
  ],
  elasticsearch: [
    [
      'test/http/elasticsearch.test.ts',
      'reads what the index holds, not the store: a document written to the engine alone is served',
    ],
  ],
  stateOptions: [
    ['test/http/elasticsearch.test.ts', "takes a message handler's write into the index named by stateOptions"],
  ],
  // Constraints.
  identifier: [
    [
      'test/http/identifiers.test.ts',
      'stores a valid string identifier, reachable at its IRI; without one the store assigns a reachable UUID',
    ],
  ],
  required: [
    [
      'test/http/validation-groups.test.ts',
      'POST runs Default and create: the grouped constraints and their custom messages',
    ],
  ],
  nullable: [['test/http/constraints.test.ts', CONSTRAINTS_FROM_THE_FILE]],
  readOnly: [
    [
      'test/http/strict-bodies.test.ts',
      'counts a read-only attribute as extra (the store-assigned id too), not the JSON-LD keywords',
    ],
    [
      'test/http/server-values.test.ts',
      'takes a value a client gives where the property says readOnly: false, but onUpdate: now overrides it',
    ],
  ],
  writeOnly: [
    [
      'test/http/persistence.test.ts',
      'shows stored items as the edited file describes them, in collections as in items',
    ],
  ],
  default: [
    [
      'test/http/server-values.test.ts',
      'fills a created item: the time of the create, its UTC date, the user; ignores what the body says of them',
    ],
  ],
  minimum: [
    [
      'test/http/validation-groups.test.ts',
      'POST runs Default and create: the grouped constraints and their custom messages',
    ],
  ],
  maximum: [['test/http/constraints.test.ts', CONSTRAINTS_FROM_THE_FILE]],
  minLength: [['test/http/constraints.test.ts', CONSTRAINTS_FROM_THE_FILE]],
  maxLength: [
    [
      'test/http/validation-groups.test.ts',
      'POST runs Default and create: the grouped constraints and their custom messages',
    ],
  ],
  pattern: [['test/http/constraints.test.ts', CONSTRAINTS_FROM_THE_FILE]],
  enum: [['test/http/constraints.test.ts', CONSTRAINTS_FROM_THE_FILE]],
  format: [['test/http/constraints.test.ts', CONSTRAINT_CASES]],
  exclusiveMinimum: [['test/http/constraints.test.ts', CONSTRAINT_CASES]],
  exclusiveMaximum: [['test/http/constraints.test.ts', CONSTRAINT_CASES]],
  multipleOf: [['test/http/constraints.test.ts', CONSTRAINT_CASES]],
  minItems: [['test/http/constraints.test.ts', CONSTRAINT_CASES]],
  maxItems: [['test/http/constraints.test.ts', CONSTRAINT_CASES]],
  uniqueItems: [['test/http/constraints.test.ts', CONSTRAINT_CASES]],
  assert: [
    [
      'test/http/assert.test.ts',
      'lets the allowed transitions through and answers a refused one with 422 on the property, not 403',
    ],
    [
      'test/http/assert.test.ts',
      'uses "This value is not valid." without a message, and a resource-level assert has an empty path, first',
    ],
  ],
  unique: [
    [
      'test/http/unique.test.ts',
      'answers a repeated unique property with 422 UniqueEntity on POST, PUT and PATCH, storing nothing',
    ],
    [
      'test/http/unique.test.ts',
      'checks a composite list together, the violation on its first property; a null among them is not checked',
    ],
  ],
  groups: [
    ['test/http/groups.test.ts', 'GET item in JSON-LD and JSON: the read group, @id and @type always'],
    [
      'test/http/constraints.test.ts',
      'object form: a custom message; groups decide where a constraint runs (POST: Default and create)',
    ],
  ],
  throwOnAccessDenied: [
    ['test/http/security-properties.test.ts', 'with throwOnAccessDenied the write answers 403 and changes nothing'],
  ],
  onDelete: [
    [
      'test/http/referential-actions.test.ts',
      'cascade, to-one then to-many (two levels): the speaker, their talks and the playlists holding those talks go',
    ],
    ['test/http/referential-actions.test.ts', 'setNull, to-one: the talks of a deleted track stay, without a track'],
  ],
  owned: [
    ['test/http/owned-items.test.ts', 'orphan removal: a line a PATCH drops is deleted, then the lines a PUT drops'],
    [
      'test/http/owned-items.test.ts',
      'bob cannot list a line of ann’s order by IRI: 400 exactly as an unknown IRI, nothing stored',
    ],
    ['test/http/owned-items.test.ts', 'deleting the order deletes its lines and notes; another order’s lines stay'],
  ],
  onUpdate: [
    ['test/http/server-values.test.ts', 'stamps every update (PATCH, PUT) and keeps the create values and the owner'],
  ],
  maxDepth: [
    [
      'test/http/embedding.test.ts',
      'a cycle shows an item already on the path as its IRI; maxDepth (enable_max_depth) leaves the relation out',
    ],
  ],
  // Operation options and property constraints at once (the same names).
  security: [
    ['test/http/security-stages.test.ts', 'anonymous: 401 on GetCollection, Get, Post; a user with the role: 200/201'],
    [
      'test/http/security-properties.test.ts',
      'an item leaves the property out for a user the rule denies, and shows it to one it grants',
    ],
  ],
  securityPostDenormalize: [
    [
      'test/http/security-stages.test.ts',
      'object is the unsaved item: a user may only create a book they own (nothing stored otherwise)',
    ],
    [
      'test/http/security-properties.test.ts',
      'a denied write keeps the stored value and answers 200; the rest of the change is applied',
    ],
  ],
  // GraphQL operations' own options.
  resolver: [
    [
      'test/http/graphql.test.ts',
      'resolver on a GraphQL operation: a custom item query answers what its resolver gives (null: no error)',
    ],
  ],
  args: [
    [
      'test/http/graphql.test.ts',
      'args on a GraphQL operation: replace the default arguments and reach the resolver as ctx.args',
    ],
  ],
  extraArgs: [
    [
      'test/http/graphql.test.ts',
      'extraArgs on a GraphQL operation: add to the default arguments and reach the resolver as ctx.args',
    ],
  ],
  nested: [
    [
      'test/http/graphql.test.ts',
      'nested on a GraphQL operation: a resource with `graphql {}` has no root field, its type is reached through a relation',
    ],
  ],
  paginationType: [
    [
      'test/http/graphql.test.ts',
      'paginationType on a GraphQL operation: "page" gives page (and itemsPerPage), collection and paginationInfo',
    ],
  ],
};

const ENTRIES = [
  ...OPTIONS.map((o) => ({ name: o.name, effect: o.effect })),
  ...CONSTRAINTS.map((c) => ({ name: c.name, effect: undefined })),
];

/** Whether `file` holds a test (`it(…)`) titled exactly `title`, in any quotes. */
function hasTest(file: string, title: string): boolean {
  const source = readFileSync(fromRoot(file), 'utf8');
  const escaped = title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`\\bit\\(\\s*(['"\`])${escaped}\\1`).test(source);
}

describe('no inert option', () => {
  it('every option and constraint either has a test showing its effect or a catalogue marker', () => {
    const orphans = ENTRIES.filter((e) => (!e.effect || e.effect.on === 'operation') && !SHOWN_BY[e.name]).map(
      (e) => e.name,
    );
    expect(orphans, 'options with neither a covering test nor an effect marker').to.deep.equal([]);
  });

  it('every named test exists in its file under that title', () => {
    for (const [name, tests] of Object.entries(SHOWN_BY)) {
      expect(
        ENTRIES.some((e) => e.name === name),
        `${name} is not in the catalogue`,
      ).to.equal(true);
      expect(tests, name).to.not.be.empty;
      for (const [file, title] of tests) expect(hasTest(file, title), `${name}: ${file}: "${title}"`).to.equal(true);
    }
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
