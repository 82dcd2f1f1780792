/**
 * The TypeScript types of items in a generated client, from the model (docs/client.md, "Types"): per resource and
 * set of groups, what responses hold (the normalization groups: shownProperties, relations embedded where the
 * groups embed them) and what request bodies take (the denormalization groups: acceptedProperties, read-only
 * properties absent, writable links as IRI or nested object). Declared once each under a name that says its
 * groups (`Book`, `BookRead`, `BookInput`, `BookInputWrite`), in the order they are first asked for.
 */
import {
  acceptedProperties,
  denormalizationGroups,
  embeddedProperties,
  normalizationGroups,
  shownProperties,
} from '../metadata/property-access.js';
import type { ApiMetadata, OperationMetadata, PropertyMetadata, ResourceMetadata } from '../metadata/types.js';
import { groupsTypeName } from './names.js';

const BASE_TYPES: Record<string, string> = {
  int: 'number',
  number: 'number',
  string: 'string',
  bool: 'boolean',
  datetime: 'string',
  date: 'string',
  json: 'unknown',
};

/** A key as TypeScript writes it: bare when it is an identifier, quoted otherwise (`'@id'`). */
export const key = (name: string): string => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name));

/** A doc comment of one line (or none). */
export const doc = (text: string | undefined, indent: string): string =>
  text ? `${indent}/** ${text.replace(/\*\//g, '*\\/').replace(/\s*\n\s*/g, ' ')} */\n` : '';

export const iriType = (resource: string): string => `R.Iri<${JSON.stringify(resource)}>`;

/** One value of a property (each item of a list): its enum's literals, or its base type. */
function scalarType(p: PropertyMetadata): string {
  if (Array.isArray(p.enum) && p.enum.length > 0) return p.enum.map((v) => JSON.stringify(v)).join(' | ');
  return BASE_TYPES[p.type] ?? 'unknown';
}

const listOf = (one: string, p: PropertyMetadata): string => (p.array ? `(${one})[]` : one);

/** A value the server sets: never written by a client, never changed by one. */
const serverSet = (p: PropertyMetadata): boolean =>
  p.identifier || p.readOnly || p.serverDefault !== undefined || p.onUpdate !== undefined;

export class ItemTypes {
  private readonly declared = new Map<string, string>();

  constructor(
    private readonly api: ApiMetadata,
    /** JSON-LD items carry `@id` and `@type`. */
    private readonly jsonLd: boolean,
  ) {}

  /** Every declaration, in the order they were asked for. */
  get text(): string {
    return [...this.declared.values()].join('\n');
  }

  /** Declares a type once, under its name (also the JSON:API read shapes: read-shapes.ts). */
  declare(name: string, build: () => string): string {
    if (!this.declared.has(name)) {
      this.declared.set(name, ''); // reserved first: a recursive relation refers to it
      this.declared.set(name, build());
    }
    return name;
  }

  /** What the operation's responses hold: the output type of its normalization groups. */
  output(op: OperationMetadata): string {
    const groups = normalizationGroups(op);
    const name = groupsTypeName(op.shortName, groups);
    return this.declare(name, () => this.outputType(name, op.resource, shownProperties(op, this.api.settings), groups));
  }

  private outputType(
    name: string,
    resource: ResourceMetadata,
    shown: readonly PropertyMetadata[],
    groups: string[] | undefined,
  ): string {
    const lines = this.jsonLd
      ? [`  readonly '@id': ${iriType(resource.shortName)};`, `  readonly '@type': string;`]
      : [];
    for (const p of shown) {
      const always = (p.required || p.identifier) && p.security === undefined;
      const value = listOf(this.outputValue(p, groups), p);
      lines.push(
        `${doc(p.description, '  ')}  ${serverSet(p) ? 'readonly ' : ''}${key(p.name)}${always ? '' : '?'}: ${value};`,
      );
    }
    return `${doc(resource.description, '')}export interface ${name} {\n${lines.join('\n')}\n}\n`;
  }

  /** A relation the groups embed is the target's object (or its IRI, where the nesting stops); else an IRI. */
  private outputValue(p: PropertyMetadata, groups: string[] | undefined): string {
    const target = p.relation === undefined ? undefined : this.api.resource(p.relation);
    if (!target) return p.relation === undefined ? scalarType(p) : iriType(p.relation);
    const shown = embeddedProperties(target, groups, 'output');
    if (!shown) return iriType(target.shortName);
    const name = groupsTypeName(target.shortName, groups);
    this.declare(name, () => this.outputType(name, target, shown, groups));
    return `${name} | ${iriType(target.shortName)}`;
  }

  /** What the operation's request bodies take: the input type of its denormalization groups. */
  input(op: OperationMetadata): string {
    const groups = denormalizationGroups(op, this.api.settings);
    const name = groupsTypeName(op.resource.shortName, groups, 'Input');
    return this.declare(name, () =>
      this.inputType(name, op.resource, acceptedProperties(op, this.api.settings), groups, false),
    );
  }

  /** A PATCH body: the input with every property optional (JSON Merge Patch). */
  patch(op: OperationMetadata): string {
    const input = this.input(op);
    const name = groupsTypeName(op.resource.shortName, denormalizationGroups(op, this.api.settings), 'Patch');
    return this.declare(name, () => `export type ${name} = Partial<${input}>;\n`);
  }

  private inputType(
    name: string,
    resource: ResourceMetadata,
    accepted: readonly PropertyMetadata[],
    groups: string[] | undefined,
    nested: boolean,
  ): string {
    const lines = nested
      ? [`  /** The IRI of a stored item to change; absent: a new item. */\n  '@id'?: ${iriType(resource.shortName)};`]
      : [];
    for (const p of accepted) {
      const required = p.required && p.default === undefined && p.serverDefault === undefined;
      const value = listOf(this.inputValue(p, groups), p) + (p.nullable && !p.required ? ' | null' : '');
      lines.push(`${doc(p.description, '  ')}  ${key(p.name)}${required ? '' : '?'}: ${value};`);
    }
    return `export interface ${name} {\n${lines.join('\n')}\n}\n`;
  }

  /** A relation the groups make a writable link takes an IRI or a nested object; else an IRI. */
  private inputValue(p: PropertyMetadata, groups: string[] | undefined): string {
    const target = p.relation === undefined ? undefined : this.api.resource(p.relation);
    if (!target) return p.relation === undefined ? scalarType(p) : iriType(p.relation);
    const accepted = target.identifier ? embeddedProperties(target, groups, 'input') : undefined;
    if (!accepted) return iriType(target.shortName);
    const name = groupsTypeName(target.shortName, groups, 'Nested');
    this.declare(name, () => this.inputType(name, target, accepted, groups, true));
    // An object naming a stored item by `@id` changes only what it gives.
    return `${iriType(target.shortName)} | ${name} | ({ '@id': ${iriType(target.shortName)} } & Partial<${name}>)`;
  }
}
