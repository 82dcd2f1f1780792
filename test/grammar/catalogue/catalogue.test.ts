/**
 * The option catalogue (grammar/catalogue/): every option and global setting of API Platform, in its group
 * with its default, the types and constraints, and docs/options.md generated from it byte for byte.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import {
  CONSTRAINTS,
  FILTER_KINDS,
  OPERATION_KINDS,
  OPTIONS,
  PROPERTY_TYPES,
  SETTINGS,
  constraintByName,
  describeType,
  filterKind,
  formatDefault,
  optionByName,
  propertyType,
  settingByPath,
  settingChildren,
  valueConforms,
} from '../../../grammar/catalogue/index.js';
import { renderOptionsReference } from '../../../grammar/catalogue/docs.js';
import { fromRoot } from '../../support/paths.js';

// API Platform's operation options, listed here independently of the catalogue, so that a missing option fails here.
const API_PLATFORM_OPERATION_OPTIONS = [
  'resolver',
  'args',
  'extraArgs',
  'links',
  'shortName',
  'class',
  'paginationEnabled',
  'paginationType',
  'paginationItemsPerPage',
  'paginationMaximumItemsPerPage',
  'paginationPartial',
  'paginationClientEnabled',
  'paginationClientItemsPerPage',
  'paginationClientPartial',
  'paginationFetchJoinCollection',
  'paginationUseOutputWalkers',
  'paginationViaCursor',
  'order',
  'description',
  'normalizationContext',
  'denormalizationContext',
  'collectDenormalizationErrors',
  'security',
  'securityMessage',
  'securityPostDenormalize',
  'securityPostDenormalizeMessage',
  'securityPostValidation',
  'securityPostValidationMessage',
  'deprecationReason',
  'filters',
  'validationContext',
  'input',
  'output',
  'mercure',
  'messenger',
  'elasticsearch',
  'urlGenerationStrategy',
  'read',
  'deserialize',
  'validate',
  'write',
  'serialize',
  'fetchPartial',
  'forceEager',
  'priority',
  'name',
  'provider',
  'processor',
  'stateOptions',
  'extraProperties',
  'nested',
];
const API_PLATFORM_ROUTING_OPTIONS = [
  'uriTemplate',
  'itemUriTemplate',
  'method',
  'requirements',
  'defaults',
  'options',
  'schemes',
  'host',
  'status',
  'controller',
  'allowCreate',
  'throwOnNotFound',
  'parameters',
];
const API_PLATFORM_RESOURCE_SETTINGS = ['routePrefix'];
const API_PLATFORM_GLOBAL_SETTINGS: Record<string, unknown> = {
  'defaults.pagination_enabled': true,
  'defaults.pagination_client_enabled': false,
  'defaults.pagination_items_per_page': 30,
  'defaults.pagination_client_items_per_page': false,
  'defaults.pagination_maximum_items_per_page': undefined,
  'defaults.pagination_partial': false,
  'defaults.pagination_client_partial': false,
  'collection.pagination.page_parameter_name': 'page',
  'collection.pagination.enabled_parameter_name': 'pagination',
  'collection.pagination.items_per_page_parameter_name': 'itemsPerPage',
  'collection.pagination.partial_parameter_name': 'partial',
};

describe('option catalogue', () => {
  it('has every option API Platform has, in its group', () => {
    for (const name of API_PLATFORM_OPERATION_OPTIONS) expect(optionByName(name)?.group, name).to.equal('operation');
    for (const name of API_PLATFORM_ROUTING_OPTIONS) expect(optionByName(name)?.group, name).to.equal('routing');
    for (const name of API_PLATFORM_RESOURCE_SETTINGS) expect(optionByName(name)?.group, name).to.equal('resource');
    expect(optionByName('strictQueryParameterValidation')?.type).to.deep.equal({ kind: 'bool' });
    expect(optionByName('noSuchOption')).to.equal(undefined);
  });

  it('has every global setting API Platform has, with its default', () => {
    for (const [path, value] of Object.entries(API_PLATFORM_GLOBAL_SETTINGS)) {
      const s = settingByPath(path);
      expect(s, path).to.not.equal(undefined);
      expect(s!.default, path).to.deep.equal(value);
    }
  });

  it('derives the defaults.* settings from the options with a globalName', () => {
    const withGlobal = OPTIONS.filter((o) => o.globalName);
    expect(withGlobal.map((o) => `defaults.${o.globalName}`).sort()).to.deep.equal(
      SETTINGS.filter((s) => s.path.startsWith('defaults.'))
        .map((s) => s.path)
        .sort(),
    );
    for (const o of withGlobal) expect(settingByPath(`defaults.${o.globalName}`)!.default).to.equal(o.default);
  });

  it('has unique names everywhere', () => {
    const unique = (names: string[]) => expect(new Set(names).size, names.join(',')).to.equal(names.length);
    unique(OPTIONS.map((o) => o.name));
    unique(SETTINGS.map((s) => s.path));
    unique(PROPERTY_TYPES.map((t) => t.name));
    unique(CONSTRAINTS.map((c) => c.name));
    unique(FILTER_KINDS.map((k) => k.name));
  });

  it('gives defaults that conform to their own types', () => {
    for (const o of OPTIONS) {
      if (o.default !== undefined) expect(valueConforms(o.default, o.type), o.name).to.equal(true);
    }
    for (const s of SETTINGS) {
      if (s.default !== undefined) expect(valueConforms(s.default, s.type), s.path).to.equal(true);
    }
    for (const k of FILTER_KINDS) {
      if (k.perProperty) expect(valueConforms(k.perProperty.default, k.perProperty.type), k.name).to.equal(true);
    }
  });

  it('keeps placements consistent', () => {
    for (const o of OPTIONS) {
      for (const k of o.placement.operations) expect(OPERATION_KINDS, o.name).to.include(k);
      for (const k of o.placement.ineffectiveOn ?? []) expect(o.placement.operations, o.name).to.include(k);
      expect(o.doc, o.name).to.not.include('\n');
      expect(o.doc.length, o.name).to.be.greaterThan(0);
    }
    expect(optionByName('allowCreate')!.placement).to.deep.equal({ resource: false, operations: ['Put'] });
    expect(optionByName('itemUriTemplate')!.placement.operations).to.deep.equal(['GetCollection', 'Post']);
    expect(optionByName('routePrefix')!.placement).to.deep.equal({ resource: true, operations: [] });
    expect(optionByName('paginationEnabled')!.placement.ineffectiveOn).to.include('Get');
    expect(optionByName('paginationEnabled')!.placement.ineffectiveOn).to.not.include('GetCollection');
    expect(optionByName('filters')!.placement.ineffectiveOn).to.include('Post');
    for (const name of API_PLATFORM_ROUTING_OPTIONS)
      expect(optionByName(name)!.placement.resource, name).to.equal(false);
  });

  it('looks up property types, constraints and filter kinds', () => {
    expect(propertyType('datetime')).to.include({ jsonType: 'string', format: 'date-time' });
    expect(propertyType('int')!.identifier).to.equal(true);
    expect(constraintByName('minLength')!.appliesTo).to.deep.equal(['string']);
    expect(constraintByName('required')!.appliesTo).to.equal(undefined);
    expect(filterKind('search')!.perProperty!.default).to.equal('exact');
    expect(filterKind('range')!.perProperty).to.equal(undefined);
    expect(filterKind('order')!.fields).to.have.keys('properties', 'description', 'nulls_comparison');
    for (const k of FILTER_KINDS) expect(k.fields.properties!.required, k.name).to.equal(true);
    expect(
      valueConforms({ title: 'partial', author: 'exact' }, filterKind('search')!.fields.properties!.type),
    ).to.equal(true);
    expect(valueConforms({ price: 'partial' }, filterKind('range')!.fields.properties!.type)).to.equal(false);
  });

  it('lists the children of config blocks', () => {
    expect(settingChildren('')).to.deep.equal([
      'admin',
      'body_size_limit',
      'bulk_max_items',
      'client',
      'cluster',
      'collection',
      'cors',
      'defaults',
      'elasticsearch',
      'error_formats',
      'formats',
      'graphql',
      'http_cache',
      'hydra_prefix',
      'mcp',
      'mercure',
      'messenger',
      'patch_formats',
      'path_segment_name_generator',
      'rate_limit',
      'security',
      'server',
      'trusted_hosts',
    ]);
    expect(settingChildren('admin')).to.deep.equal(['enabled', 'path', 'title']);
    expect(settingChildren('security')).to.deep.equal(['authenticator', 'jwt', 'role_hierarchy', 'voters']);
    expect(settingChildren('rate_limit')).to.deep.equal(['by', 'interval', 'limit', 'trusted_proxies']);
    expect(settingChildren('security.jwt')).to.deep.equal([
      'algorithms',
      'audience',
      'issuer',
      'jwks',
      'leeway',
      'public_key',
      'roles_claim',
      'secret_env',
      'user_claim',
    ]);
    expect(settingChildren('http_cache')).to.deep.equal([
      'etag',
      'in_process',
      'invalidation',
      'max_age',
      'public',
      'shared_max_age',
      'stale_while_revalidate',
      'vary',
    ]);
    expect(settingChildren('cors')).to.deep.equal([
      'allow_headers',
      'allow_origin',
      'credentials',
      'expose_headers',
      'max_age',
    ]);
    expect(settingChildren('server')).to.deep.equal([
      'headers_timeout',
      'keep_alive_timeout',
      'max_connections',
      'request_timeout',
    ]);
    expect(settingChildren('collection')).to.deep.equal([
      'exists_parameter_name',
      'order',
      'order_parameter_name',
      'pagination',
    ]);
    expect(settingChildren('collection.pagination')).to.deep.equal([
      'enabled_parameter_name',
      'items_per_page_parameter_name',
      'page_parameter_name',
      'partial_parameter_name',
    ]);
    expect(settingChildren('defaults')).to.include('pagination_items_per_page');
    expect(settingChildren('formats')).to.deep.equal([]);
    expect(settingChildren('nope')).to.deep.equal([]);
  });

  it('describes types for messages and docs', () => {
    expect(describeType({ kind: 'bool' })).to.equal('bool');
    expect(describeType(optionByName('paginationItemsPerPage')!.type)).to.equal('int (0 or more)');
    expect(describeType(optionByName('status')!.type)).to.equal('int (100 to 599)');
    expect(describeType(optionByName('paginationType')!.type)).to.equal('"page" | "cursor"');
    expect(describeType(optionByName('filters')!.type)).to.equal('list of filter names');
    expect(describeType(optionByName('paginationViaCursor')!.type)).to.equal('list of objects { field, direction }');
    expect(describeType(optionByName('input')!.type)).to.equal('list or object or string or false');
    expect(describeType(optionByName('controller')!.type)).to.equal('"<file>#<export>" or "NotFoundAction"');
    expect(describeType(settingByPath('formats')!.type)).to.equal('map of lists of strings');
    expect(describeType(optionByName('rateLimit')!.type)).to.equal('false or object { limit?, interval?, by?, for? }');
    expect(describeType(settingByPath('rate_limit.interval')!.type)).to.equal(
      'an interval "N second(s)|minute(s)|hour(s)"',
    );
    expect(describeType(settingByPath('rate_limit.trusted_proxies')!.type)).to.equal(
      'list of IP addresses or CIDR ranges',
    );
  });

  it('formats defaults as they are written in a .api file', () => {
    expect(formatDefault(undefined)).to.equal('none');
    expect(formatDefault(30)).to.equal('30');
    expect(formatDefault('page')).to.equal('"page"');
    expect(formatDefault([])).to.equal('[]');
    expect(formatDefault({ jsonld: ['application/ld+json'] })).to.equal('{ jsonld: ["application/ld+json"] }');
  });

  it('checks values against types', () => {
    const rateLimit = optionByName('rateLimit')!.type;
    expect(valueConforms({ limit: 5, interval: '2 minutes', by: 'user' }, rateLimit)).to.equal(true);
    expect(valueConforms({ limit: 5, interval: '2 min' }, rateLimit)).to.equal(false);
    expect(valueConforms(['10.0.0.0/8', '::1'], settingByPath('rate_limit.trusted_proxies')!.type)).to.equal(true);
    expect(valueConforms(['10.0.0.0/8', 'host'], settingByPath('rate_limit.trusted_proxies')!.type)).to.equal(false);
    const cursor = optionByName('paginationViaCursor')!.type;
    expect(valueConforms([{ field: 'id', direction: 'desc' }], cursor)).to.equal(true);
    expect(valueConforms([{ field: 'id' }], cursor)).to.equal(false);
    expect(valueConforms([{ field: 'id', direction: 'DESC', extra: 1 }], cursor)).to.equal(false);
    expect(valueConforms(false, optionByName('output')!.type)).to.equal(true);
    expect(valueConforms(true, optionByName('output')!.type)).to.equal(false);
    expect(valueConforms(99, optionByName('status')!.type)).to.equal(false);
    expect(valueConforms(1.5, optionByName('priority')!.type)).to.equal(false);
    expect(valueConforms('NotFoundAction', optionByName('controller')!.type)).to.equal(true);
    expect(valueConforms('./x.mjs#handler', optionByName('controller')!.type)).to.equal(true);
    expect(valueConforms('Nope', optionByName('controller')!.type)).to.equal(false);
  });

  it('docs/options.md is up to date', () => {
    const path = fromRoot('docs/options.md');
    let onDisk = '';
    try {
      onDisk = readFileSync(path, 'utf8');
    } catch {
      expect.fail('docs/options.md is missing: run `npm run docs`');
    }
    expect(onDisk === renderOptionsReference(), 'docs/options.md is out of date: run `npm run docs`').to.equal(true);
  });

  it('renders deterministically, with the generated-file notice first', () => {
    const text = renderOptionsReference();
    expect(text).to.equal(renderOptionsReference());
    expect(text.split('\n')[0]).to.include('npm run docs').and.include('grammar/catalogue');
    for (const o of OPTIONS) expect(text).to.include(`\`${o.name}\``);
    for (const s of SETTINGS) expect(text).to.include(`\`${s.path}\``);
  });
});
