/**
 * Operations: kinds, options and where they are allowed, names, routes (method, itemUriTemplate,
 * requirements), cursor pagination's filters, filter and parameter properties, and PATCH
 * formats.
 */
import * as A from '../../ast.js';
import {
  ITEM_KINDS,
  OPERATION_KINDS,
  OPTIONS,
  optionByName,
  filterKind,
  type OperationKind,
} from '../../catalogue/index.js';
import {
  allOperations,
  configEntry,
  wordOf,
  type ModelFilter,
  type ModelOperation,
  type ModelResource,
} from '../../model.js';
import { placeholders } from '../../naming.js';
import type { CheckContext } from '../check-context.js';
import { checkValue } from '../value-types.js';
import { reportEffect } from './effects.js';
import { followFilterPath } from './filter-paths.js';
import { checkFilterPropertyType } from './filter-types.js';

export function checkOperations(ctx: CheckContext): void {
  const patchFormats = configEntry(ctx.model.config, 'patch_formats')?.value;
  const patchEnabled = patchFormats?.kind === 'array' && patchFormats.items.length > 0;
  const reportedFilterProps = new Set<string>(); // findings shared by several operations, reported once
  for (const resource of ctx.model.resources.values()) {
    for (const op of resource.operations) {
      if (op.decl) checkDeclared(ctx, op);
      checkRoute(ctx, resource, op);
      checkCursor(ctx, resource, op);
      checkFilterProperties(ctx, resource, op, reportedFilterProps);
      // Declared Patch operations only: warning on every resource that merely gets the
      // default set would drown real findings (the docs say PATCH needs patch_formats).
      if (op.kind === 'Patch' && op.decl && !patchEnabled) {
        ctx.report(
          'patch-disabled',
          op.decl.opKind.range,
          'this Patch operation will answer 415: config patch_formats is empty (add patch_formats: ["application/merge-patch+json"] to config)',
        );
      }
    }
  }
  checkNames(ctx);
}

function checkDeclared(ctx: CheckContext, op: ModelOperation): void {
  const decl = op.decl!;
  if (!op.known) {
    ctx.unknownKind(decl.opKind, 'operation kind', OPERATION_KINDS);
    return;
  }
  const kind = op.kind as OperationKind;
  const entries = decl.body?.entries ?? [];
  ctx.duplicateKeys(entries, 'option');
  for (const e of entries) {
    const spec = optionByName(e.key.text);
    if (!spec) {
      ctx.unknown(
        'unknown-option',
        e.key,
        `option for ${kind}`,
        OPTIONS.filter((o) => o.placement.operations.includes(kind)).map((o) => o.name),
      );
      continue;
    }
    if (spec.placement.operations.length === 0 && spec.placement.graphql) {
      ctx.report(
        'graphql-only-option',
        e.key.range,
        `'${e.key.text}' has no effect on a REST operation: it is an option of GraphQL operations, written in the resource's graphql block`,
      );
      checkValue(ctx, e.value, spec.type, `'${e.key.text}'`);
      continue;
    }
    if (!spec.placement.operations.includes(kind)) {
      const where = spec.placement.operations.length
        ? `only allowed on ${spec.placement.operations.join(' and ')}`
        : 'a resource setting';
      ctx.report('option-not-allowed', e.key.range, `'${e.key.text}' is ${where}, not on ${kind}`);
      continue;
    }
    if (spec.placement.ineffectiveOn?.includes(kind)) {
      ctx.report(
        'option-ineffective',
        e.key.range,
        `'${e.key.text}' has no effect on ${kind}: it applies to operations that list a collection (GetCollection, Query)`,
      );
    }
    reportEffect(ctx, spec, e.key, true);
    checkValue(ctx, e.value, spec.type, `'${e.key.text}'`);
  }
  if (kind === 'HttpOperation' && !op.options.has('method')) {
    ctx.report('missing-method', decl.opKind.range, 'an HttpOperation needs a \'method\' (for example method: "POST")');
  }
}

function checkRoute(ctx: CheckContext, resource: ModelResource, op: ModelOperation): void {
  if (
    (ITEM_KINDS as readonly string[]).includes(op.kind) &&
    !resource.identifier &&
    op.uriTemplate === undefined &&
    op.decl
  ) {
    ctx.report(
      'identifier-issue',
      op.decl.opKind.range,
      `'${resource.name}' has no identifier, so it has no item route for ${op.kind}: mark a property 'identifier: true', name one 'id', or give a uriTemplate`,
    );
  }
  const itemTemplate = op.options.get('itemUriTemplate')?.value;
  const template = wordOf(itemTemplate);
  if (itemTemplate && template !== undefined && (op.kind === 'GetCollection' || op.kind === 'Post')) {
    const candidates = resource.operations.filter((o) => !o.collectionRoute && o.method === 'GET');
    const found = candidates.some((o) => o.uriTemplate === template || o.path === template);
    if (!found) {
      const names = candidates.map((o) => o.uriTemplate ?? o.path);
      ctx.unknown(
        'unknown-operation',
        { text: template, range: itemTemplate.range },
        'item uriTemplate',
        names,
        `; itemUriTemplate must be the uriTemplate of a Get operation of '${resource.name}'`,
      );
    }
  }
  checkPlaceholders(ctx, resource, op);
  const shortName = op.options.get('shortName')?.value;
  const other = [...ctx.model.resources.values()].find((r) => r !== resource && r.shortName === wordOf(shortName));
  if (shortName && other)
    ctx.report(
      'shortname-taken',
      shortName.range,
      `'${other.shortName}' is the shortName of resource '${other.name}': an operation's shortName must name no other resource`,
    );
  if (RESERVED_PATH.test(op.path)) {
    const range = op.options.get('uriTemplate')?.value?.range ?? op.decl?.opKind.range ?? resource.decl.name?.range;
    if (range)
      ctx.report(
        'reserved-path',
        range,
        `${op.path} is under a path the service serves itself (/docs, /contexts, /errors, /.well-known): choose another uriTemplate, shortName or routePrefix`,
      );
  }
  const requirements = op.options.get('requirements')?.value;
  if (requirements?.kind === 'object') {
    const names = placeholders(op.path);
    for (const e of requirements.entries) {
      if (!names.includes(e.key.text)) {
        const list = names.length ? names.map((n) => `{${n}}`).join(', ') : 'none';
        ctx.unknown(
          'invalid-requirement',
          e.key,
          'requirement',
          names,
          `: not a placeholder of ${op.path} (placeholders: ${list})`,
        );
      } else if (e.value?.kind === 'string') {
        try {
          new RegExp(`^(?:${e.value.value})$`, 'u');
        } catch (err) {
          ctx.report(
            'invalid-requirement',
            e.value.range,
            `requirement for {${e.key.text}} is not a valid regular expression: ${(err as Error).message}`,
          );
        }
      }
    }
  }
}

/** Paths the service itself answers: documentation, JSON-LD contexts, error pages, generated IRIs. */
const RESERVED_PATH = /^\/(?:docs|contexts|errors|\.well-known)(?:[/.]|$)/;

/**
 * Every placeholder of a route must select something: the identifier, a property of the resource, or
 * the `parameterName` of one of the operation's `links`; else the route would serve items unfiltered.
 */
function checkPlaceholders(ctx: CheckContext, resource: ModelResource, op: ModelOperation): void {
  // Custom code that reads the data itself receives every URI variable and binds them as it likes.
  const read = effective(resource, op, 'read')?.value;
  if (effective(resource, op, 'provider') || op.options.has('controller') || (read?.kind === 'bool' && !read.value))
    return;
  const entry = effective(resource, op, 'links');
  const links = A.toPlain(entry?.value);
  const linked = new Set(
    Array.isArray(links) ? links.map((l) => (l as Record<string, unknown> | null)?.parameterName) : [],
  );
  for (const name of placeholders(op.path)) {
    if (name === resource.identifier?.name || resource.properties.has(name) || linked.has(name)) continue;
    const range = op.options.get('uriTemplate')?.value?.range ?? op.decl?.opKind.range ?? resource.decl.name?.range;
    if (!range) continue;
    ctx.report(
      'unbound-placeholder',
      range,
      `the placeholder {${name}} of ${op.path} binds to nothing: name a property '${name}' of '${resource.name}' or add a link { parameterName: "${name}", … } to 'links'`,
    );
  }
}

/** The operation's own entry for an option, else the resource's. */
export const effective = (resource: ModelResource, op: ModelOperation, name: string): A.Entry | undefined =>
  op.options.get(name) ?? resource.options.get(name);

export function filterNames(resource: ModelResource, op: ModelOperation): string[] {
  const value = effective(resource, op, 'filters')?.value;
  return value?.kind === 'array' ? value.items.map(wordOf).filter((n): n is string => n !== undefined) : [];
}

function checkCursor(ctx: CheckContext, resource: ModelResource, op: ModelOperation): void {
  if (op.kind !== 'GetCollection' && op.kind !== 'Query' && op.kind !== 'HttpOperation') return;
  const cursor = effective(resource, op, 'paginationViaCursor');
  if (cursor?.value?.kind !== 'array') return;
  const filters = filterNames(resource, op).flatMap((n) => {
    const f = ctx.model.filters.get(n);
    return f ? [f] : [];
  });
  const covers = (kind: string, field: string): boolean =>
    filters.some(
      (f) => f.kind === kind && filterKind(kind) !== undefined && f.properties.some((p) => p.name === field),
    );
  for (const item of cursor.value.items) {
    if (item.kind !== 'object') continue;
    const fieldValue = item.entries.find((e) => e.key.text === 'field')?.value;
    const field = wordOf(fieldValue);
    if (field === undefined || !fieldValue) continue;
    if (!resource.properties.has(field)) {
      ctx.unknown(
        'unknown-property',
        { text: field, range: fieldValue.range },
        `property of '${resource.name}' for the cursor`,
        resource.properties.keys(),
      );
      continue;
    }
    const missing = ['range', 'order'].filter((k) => !covers(k, field));
    if (missing.length) {
      const where = op.decl ? `the filters of ${op.kind}` : "the operation's filters";
      ctx.report(
        'cursor-filters-missing',
        fieldValue.range,
        `cursor field '${field}' needs ${missing.map((k) => (k === 'order' ? 'an order filter' : 'a range filter')).join(' and ')} on '${field}' among ${where}`,
      );
    }
  }
}

function checkFilterProperties(
  ctx: CheckContext,
  resource: ModelResource,
  op: ModelOperation,
  reported: Set<string>,
): void {
  if (resource.properties.size === 0) return;
  for (const name of filterNames(resource, op)) {
    const filter = ctx.model.filters.get(name);
    if (!filter) continue;
    for (const p of filter.properties) {
      const key = `${name}\u0000${resource.name}\u0000${p.name}`;
      if (reported.has(key)) continue;
      reported.add(key);
      checkFilterPath(ctx, resource, filter, p, `filter '${name}' names '${p.name}': `, reported);
    }
  }
  const parameters = op.options.get('parameters')?.value;
  if (parameters?.kind !== 'object') return;
  for (const e of parameters.entries) {
    const fields = e.value?.kind === 'object' ? e.value.entries : [];
    const prop = fields.find((x) => x.key.text === 'property')?.value;
    const name = wordOf(prop) ?? e.key.text;
    const filterName = wordOf(fields.find((x) => x.key.text === 'filter')?.value);
    const filter = filterName === undefined ? undefined : ctx.model.filters.get(filterName);
    // A parameter without `property` names one by its key only when the key is one (or a path).
    if (!prop && !resource.properties.has(name) && !name.includes('.')) continue;
    const at = { name, range: (prop ?? e.key).range };
    const subject = `parameter '${e.key.text}' names '${name}': `;
    if (filter) checkFilterPath(ctx, resource, filter, at, subject, reported);
    else {
      const end = followFilterPath(ctx, resource, name);
      if ('problem' in end) ctx.report(end.problem, at.range, subject + end.message, end.suggestion);
    }
  }
}

/**
 * A filter's property (or a named parameter's): a property of the resource or a path through to-one relations
 * (filter-paths.ts), of a type the filter's kind applies to; an order filter sorts by the item's own properties.
 */
function checkFilterPath(
  ctx: CheckContext,
  resource: ModelResource,
  filter: ModelFilter,
  at: { name: string; range: A.Range },
  subject: string,
  reported: Set<string>,
): void {
  const end = followFilterPath(ctx, resource, at.name);
  if ('problem' in end) {
    ctx.report(end.problem, at.range, subject + end.message, end.suggestion);
    return;
  }
  if (end.nested && filter.kind === 'order') {
    ctx.report(
      'filter-path',
      at.range,
      `${subject}an order filter sorts by the properties of '${resource.name}' only, not by a related item's ('${at.name}')`,
    );
    return;
  }
  // The related items are read from the store, which has no full-text search (only the search index answers it).
  if (end.nested && filter.kind === 'match') {
    ctx.report(
      'filter-path',
      at.range,
      `${subject}a match filter searches the indexed text of '${resource.name}' only, not a related item's ('${at.name}')`,
    );
    return;
  }
  checkFilterPropertyType(ctx, end.resource, filter, { name: end.property.name, range: at.range }, reported);
}

function checkNames(ctx: CheckContext): void {
  const seen = new Map<string, ModelOperation>();
  for (const op of allOperations(ctx.model)) {
    if (!op.known) continue;
    const first = seen.get(op.name);
    if (first) {
      const range = op.decl?.name?.range ?? op.decl?.opKind.range ?? op.resource.decl.name!.range;
      const hint = op.named
        ? ''
        : ` (the name derived from ${op.method} ${op.path}; give one of them a uriTemplate or a name)`;
      ctx.report(
        'duplicate-operation-name',
        range,
        `operation name '${op.name}' is already used by ${first.kind} of '${first.resource.name}'${hint}`,
      );
    } else seen.set(op.name, op);
  }
}
