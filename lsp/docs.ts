/**
 * Markdown for catalogue entries (options, constraints, settings, fields, property types,
 * filter kinds, operation kinds) and for the file's own resources, filters and operations,
 * shared by hover and completion.
 */
import {
  appliesToText,
  COLLECTION_KINDS,
  GRAPHQL_KIND_SPECS,
  GRAPHQL_KINDS,
  OPTIONS,
  KIND_METHOD,
  OPERATION_KINDS,
  describeType,
  formatDefault,
  settingByPath,
  settingChildren,
  VALIDATION_FORM,
  type ConstraintSpec,
  type FieldSpec,
  type FilterKindSpec,
  type OperationKind,
  type OptionSpec,
  type PropertyTypeSpec,
} from '../grammar/catalogue/index.js';
import {
  wordOf,
  type ApiModel,
  type ModelFilter,
  type ModelGraphQlOperation,
  type ModelOperation,
  type ModelResource,
} from '../grammar/model.js';

const code = (s: string): string => `\`${s.replace(/`/g, "'")}\``;

export function optionMarkdown(spec: OptionSpec, on?: string): string {
  const facts = [`${code(describeType(spec.type))}`, `default ${code(formatDefault(spec.default))}`];
  if (spec.globalName) facts.push(`global default: ${code(`config { defaults { ${spec.globalName} } }`)}`);
  const where: string[] = [];
  if (spec.placement.resource) where.push('the resource');
  if (spec.placement.operations.length === OPERATION_KINDS.length) where.push('every operation');
  else if (spec.placement.operations.length) where.push(spec.placement.operations.join(', '));
  const graphql = spec.placement.graphql ?? [];
  if (graphql.length === GRAPHQL_KINDS.length) where.push('every GraphQL operation');
  else if (graphql.length) where.push(`GraphQL ${graphql.join(', ')}`);
  const lines = [
    `**${spec.name}** — ${spec.group} option`,
    '',
    facts.join(' · '),
    '',
    spec.doc,
    '',
    `Allowed on ${where.join(' and ')}.`,
  ];
  if (spec.placement.ineffectiveOn?.length) lines.push(`No effect on ${spec.placement.ineffectiveOn.join(', ')}.`);
  if (on && spec.placement.ineffectiveOn?.includes(on as OperationKind)) lines.push('', `_Has no effect on ${on}._`);
  return lines.join('\n');
}

export function constraintMarkdown(spec: ConstraintSpec): string {
  const applies = spec.appliesTo ? `applies to ${appliesToText(spec.appliesTo)}` : 'applies to every type';
  const lines = [`**${spec.name}** — constraint`, '', `${code(describeType(spec.type))} · ${applies}`, '', spec.doc];
  if (spec.validation) lines.push('', VALIDATION_FORM);
  return lines.join('\n');
}

/** A setting by dotted path: a leaf with its type and default, or a block with its children. */
export function settingMarkdown(path: string): string | undefined {
  const leaf = settingByPath(path);
  if (leaf)
    return [
      `**${path}** — setting`,
      '',
      `${code(describeType(leaf.type))} · default ${code(formatDefault(leaf.default))}`,
      '',
      leaf.doc,
    ].join('\n');
  const children = settingChildren(path);
  if (!children.length) return undefined;
  return [`**${path}** — block of settings`, '', children.map(code).join(', ')].join('\n');
}

export function fieldMarkdown(name: string, field: FieldSpec): string {
  return [`**${name}**${field.required ? ' (required)' : ''}`, '', code(describeType(field.type)), '', field.doc].join(
    '\n',
  );
}

export function propertyTypeMarkdown(spec: PropertyTypeSpec): string {
  const facts = [`JSON ${spec.jsonType}${spec.format ? ` (${spec.format})` : ''}`];
  if (spec.identifier) facts.push('may be the identifier');
  return [`**${spec.name}** — property type`, '', facts.join(' · '), '', spec.doc].join('\n');
}

export function filterKindMarkdown(spec: FilterKindSpec): string {
  const lines = [`**${spec.name}** — filter kind`, '', spec.doc];
  if (spec.perProperty)
    lines.push(
      '',
      `Per property: ${code(describeType(spec.perProperty.type))}, default ${code(spec.perProperty.default)} — ${spec.perProperty.doc}`,
    );
  const fields = Object.keys(spec.fields);
  lines.push('', `Fields: ${fields.map(code).join(', ')}`);
  return lines.join('\n');
}

export function opKindMarkdown(kind: string): string | undefined {
  if (!(OPERATION_KINDS as readonly string[]).includes(kind)) return undefined;
  const k = kind as OperationKind;
  const method = KIND_METHOD[k] ?? 'any method (`method` is required)';
  let route = COLLECTION_KINDS.includes(k) ? 'the collection path' : 'the item path';
  if (k === 'HttpOperation') route = 'its `uriTemplate` (default the item path)';
  return [`**${kind}** — operation kind`, '', `${method} on ${route}.`].join('\n');
}

/** A GraphQL operation kind: what it is, whether it takes a name, the options it accepts. */
export function graphQlKindMarkdown(kind: string): string | undefined {
  const spec = GRAPHQL_KIND_SPECS.find((k) => k.name === kind);
  if (!spec) return undefined;
  const options = OPTIONS.filter((o) => o.placement.graphql?.includes(spec.name)).map((o) => code(o.name));
  return [
    `**${kind}** — GraphQL operation kind`,
    '',
    spec.doc,
    '',
    spec.naming === 'required' ? `A name is required (\`${kind} create\`).` : 'A name makes it a custom operation.',
    '',
    `Options: ${options.join(', ')}.`,
  ].join('\n');
}

/** A declared GraphQL operation: its root field, then its kind's doc. */
export function graphQlOperationMarkdown(op: ModelGraphQlOperation): string {
  const field = op.fieldName === undefined ? 'no root field (it needs a name)' : `root field ${code(op.fieldName)}`;
  const lines = [
    `**${op.kind}**${op.name ? ` ${code(op.name)}` : ''}`,
    '',
    `${field} — GraphQL operation of ${code(op.resource.name)}`,
  ];
  const kindDoc = graphQlKindMarkdown(op.kind);
  if (kindDoc) lines.push('', kindDoc.split('\n').slice(2).join('\n'));
  return lines.join('\n');
}

export function operationMarkdown(op: ModelOperation): string {
  const lines = [
    `**${op.kind}** ${code(op.name)}`,
    '',
    `${code(`${op.method ?? '?'} ${op.path}`)} — operation of ${code(op.resource.name)}`,
  ];
  const kindDoc = opKindMarkdown(op.kind);
  if (kindDoc) lines.push('', kindDoc.split('\n').slice(2).join('\n'));
  return lines.join('\n');
}

export function resourceMarkdown(resource: ModelResource): string {
  const props = [...resource.properties.values()].map(
    (p) =>
      `- ${code(p.name)}: ${code(`${p.type ?? '?'}${p.array ? '[]' : ''}`)}${p === resource.identifier ? ' (identifier)' : ''}`,
  );
  const ops = resource.operations.map((o) => `- ${o.kind}: ${code(`${o.method ?? '?'} ${o.path}`)}`);
  const description = wordOf(resource.options.get('description')?.value);
  const lines = [`**resource ${resource.name}**`, ''];
  if (description) lines.push(description, '');
  lines.push(
    `Collection ${code(resource.collectionPath)}${resource.itemPath ? ` · item ${code(resource.itemPath)}` : ' · no identifier, no item route'}`,
  );
  if (props.length) lines.push('', 'Properties:', ...props);
  lines.push(
    '',
    resource.explicitOperations ? 'Operations:' : 'Operations (the default set):',
    ...(ops.length ? ops : ['- none']),
  );
  if (resource.graphql) {
    const fields = resource.graphql.map((o) => `- ${o.kind}${o.name ? ` ${o.name}` : ''}: ${code(o.fieldName ?? '?')}`);
    lines.push('', 'GraphQL operations:', ...(fields.length ? fields : ['- none of its own']));
  }
  return lines.join('\n');
}

/** The operations whose effective `filters` list a filter. */
export function operationsUsingFilter(model: ApiModel, name: string): ModelOperation[] {
  const out: ModelOperation[] = [];
  for (const resource of model.resources.values()) {
    for (const op of resource.operations) {
      const value = (op.options.get('filters') ?? resource.options.get('filters'))?.value;
      if (value?.kind === 'array' && value.items.some((i) => wordOf(i) === name)) out.push(op);
    }
  }
  return out;
}

export function filterMarkdown(model: ApiModel, filter: ModelFilter): string {
  const name = filter.name;
  const names = filter.properties.map((p) => `${p.name}${p.setting ? ` (${p.setting})` : ''}`);
  const used = operationsUsingFilter(model, name).map(
    (o) => `- ${code(o.resource.name)} ${o.kind}: ${code(`${o.method ?? '?'} ${o.path}`)}`,
  );
  const lines = [`**filter ${name}**: ${filter.kind ?? '?'}`, ''];
  lines.push(names.length ? `Properties: ${names.map(code).join(', ')}` : 'No properties.');
  lines.push('', used.length ? 'Used by:' : 'Not used by any operation.', ...used);
  return lines.join('\n');
}
