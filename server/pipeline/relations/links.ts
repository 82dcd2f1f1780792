/**
 * URI variables other than the identifier, as conditions on the items an operation reads
 * (docs/behaviour.md, "Links and sub-resources"). A variable is bound by the operation's `links`
 * entry of the same `parameterName`, else by the property of the same name:
 * - `toProperty` (or a property of that name holding a relation): the items whose relation holds
 *   the IRI of the `fromClass` item the variable identifies (`/authors/{author}/books`);
 * - `fromProperty`: the items whose IRIs the `fromClass` item lists in that property
 *   (`/authors/{id}/books` with `Author.books`);
 * - a plain property: the items whose property equals the variable (as the property's type).
 * A variable that binds to nothing is a checker error; at run time it matches nothing.
 */
import { optionValue, perOperation } from '../../metadata/options.js';
import { routeIdentifier } from '../../protocol/identifier.js';
import { itemIri } from '../../protocol/iri.js';
import type { ApiMetadata, OperationMetadata, PropertyMetadata, ResourceMetadata } from '../../metadata/types.js';
import type { Condition, Item } from '../../store/types.js';
import type { Runtime } from '../runtime.js';

/** How one URI variable selects items. */
export type UriBinding =
  | { variable: string; kind: 'equal'; property: PropertyMetadata }
  | { variable: string; kind: 'toProperty'; property: PropertyMetadata; from: ResourceMetadata; fromField: string }
  | { variable: string; kind: 'fromProperty'; fromProperty: string; from: ResourceMetadata; fromField: string }
  | { variable: string; kind: 'none' };

interface LinkSpec {
  parameterName?: string;
  fromClass?: string;
  toClass?: string;
  fromProperty?: string;
  toProperty?: string;
  identifiers?: string[];
}

const bindingsMade = perOperation((op, api: ApiMetadata) => makeBindings(api, op));

/** The bindings of an operation's URI variables other than the identifier, made once. */
export const uriBindings = (api: ApiMetadata, op: OperationMetadata): UriBinding[] => bindingsMade(op, api);

function makeBindings(api: ApiMetadata, op: OperationMetadata): UriBinding[] {
  const { resource } = op;
  const written = optionValue(op, 'links');
  const links: LinkSpec[] = Array.isArray(written) ? written : [];
  const out: UriBinding[] = [];
  for (const variable of op.uriVariables) {
    if (variable === resource.identifier?.name) continue;
    const link = links.find((l) => l?.parameterName === variable);
    out.push(link ? linkBinding(api, resource, variable, link) : propertyBinding(api, resource, variable));
  }
  return out;
}

function propertyBinding(api: ApiMetadata, resource: ResourceMetadata, variable: string): UriBinding {
  const property = resource.properties.find((p) => p.name === variable);
  if (!property || property.type === 'json' || (property.array && !property.relation))
    return { variable, kind: 'none' };
  if (!property.relation) return { variable, kind: 'equal', property };
  if (property.array) return { variable, kind: 'none' }; // a list of IRIs cannot be compared (use links with fromProperty)
  const from = api.resource(property.relation);
  if (!from?.identifier) return { variable, kind: 'none' };
  return { variable, kind: 'toProperty', property, from, fromField: from.identifier.name };
}

function linkBinding(api: ApiMetadata, resource: ResourceMetadata, variable: string, link: LinkSpec): UriBinding {
  const from = link.fromClass ? api.resource(link.fromClass) : undefined;
  const fromField = (Array.isArray(link.identifiers) && link.identifiers[0]) || from?.identifier?.name;
  if (link.toProperty) {
    const property = resource.properties.find((p) => p.name === link.toProperty);
    const target = from ?? (property?.relation ? api.resource(property.relation) : undefined);
    const field = (Array.isArray(link.identifiers) && link.identifiers[0]) || target?.identifier?.name;
    if (!property?.relation || property.array || !target || !field) return { variable, kind: 'none' };
    return { variable, kind: 'toProperty', property, from: target, fromField: field };
  }
  if (link.fromProperty && from && fromField)
    return { variable, kind: 'fromProperty', fromProperty: link.fromProperty, from, fromField };
  const property = resource.properties.find((p) => p.name === (link.identifiers?.[0] ?? variable));
  return property && !property.relation && property.type !== 'json' && !property.array
    ? { variable, kind: 'equal', property }
    : { variable, kind: 'none' };
}

/**
 * A URI variable as the property's type (an int only matches a safe integer written in digits); undefined when
 * it cannot match. An identifier's value is read by `routeIdentifier` (protocol/identifier.ts) instead.
 */
export function typedValue(prop: PropertyMetadata | undefined, raw: string): unknown {
  if (prop?.type === 'int') return /^-?\d+$/.test(raw) && Number.isSafeInteger(Number(raw)) ? Number(raw) : undefined;
  if (prop?.type === 'number') return Number.isFinite(Number(raw)) && raw.trim() !== '' ? Number(raw) : undefined;
  return raw;
}

export interface LinkContext {
  api: ApiMetadata;
  operation: OperationMetadata;
  uriVariables: Record<string, string>;
  /** The store collections of the other resources. */
  runtime: Pick<Runtime, 'collectionOf'>;
}

/** The conditions the URI variables put on the items read; undefined when they can match nothing. */
export async function linkConditions(ctx: LinkContext): Promise<Condition[] | undefined> {
  const out: Condition[] = [];
  const { resource } = ctx.operation;
  for (const binding of uriBindings(ctx.api, ctx.operation)) {
    const raw = ctx.uriVariables[binding.variable];
    if (raw === undefined || binding.kind === 'none') return undefined;
    if (binding.kind === 'equal') {
      const value = typedValue(binding.property, raw);
      if (value === undefined) return undefined;
      out.push({ op: 'eq', field: binding.property.name, value });
      continue;
    }
    const fromProp = binding.from.properties.find((p) => p.name === binding.fromField);
    const fromValue = fromProp?.identifier ? routeIdentifier(binding.from, raw) : typedValue(fromProp, raw);
    if (fromValue === undefined) return undefined;
    if (binding.kind === 'toProperty') {
      const iri = itemIri(binding.from, { [binding.fromField]: fromValue });
      out.push({ op: 'eq', field: binding.property.name, value: iri });
      continue;
    }
    // fromProperty: the from item lists the IRIs of the items.
    const [fromItem] = await ctx.runtime
      .collectionOf(binding.from)
      .find({ where: [{ op: 'eq', field: binding.fromField, value: fromValue }], limit: 1 });
    const iris = listed(fromItem, binding.fromProperty);
    const idProp = resource.identifier;
    if (!idProp) return undefined;
    const ids = iris.map((iri) => idFromIri(resource, iri)).filter((id): id is string | number => id !== undefined);
    if (ids.length === 0) return undefined;
    out.push({ op: 'in', field: idProp.name, values: ids });
  }
  return out;
}

function listed(item: Item | undefined, property: string): string[] {
  const value = item?.[property];
  return [value ?? []].flat().filter((v): v is string => typeof v === 'string');
}

/** The identifier an item IRI of the resource carries (its last path segment), typed. */
function idFromIri(resource: ResourceMetadata, iri: string): unknown {
  const segment = decodeURIComponent(
    iri
      .replace(/[?#].*$/, '')
      .split('/')
      .pop() ?? '',
  );
  return routeIdentifier(resource, segment);
}
