/**
 * The `components.schemas` of the OpenAPI document: per resource the schemas that validate
 * requests and describe responses (resourceSchema, the very schemas validation/constraints.ts runs), their
 * JSON-LD variants (`@id` and `@type` added), the Hydra collection envelopes (unprefixed or
 * `hydra:`-prefixed) and the error documents. Schemas are registered as operations refer to
 * them, so the document holds only what it uses. Every property carries an example the API
 * accepts (examples.ts). A JSON-LD variant is one object schema, not an `allOf` of the plain
 * one and the Hydra keys, so that Swagger UI draws it as an object.
 */
import { optionValue } from '../metadata/options.js';
import { operationHydraKeys, type HydraKeys } from '../protocol/hydra.js';
import {
  acceptedProperties,
  contextGroups,
  denormalizationGroups,
  embeddedProperties,
  shownProperties,
} from '../metadata/property-access.js';
import type { ApiMetadata, OperationMetadata, PropertyMetadata, ResourceMetadata } from '../metadata/types.js';
import { resourceSchema, type JsonSchema, type SchemaMode } from '../pipeline/validation/schema.js';
import {
  collectionIriExample,
  iri,
  iriExample,
  pageIriExample,
  propertyExample,
  responseIriExample,
} from './examples.js';
import { JSONAPI_ERRORS, jsonApiResourceObject } from './jsonapi-schemas.js';

export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/** The format of an output schema whose embedded relations are described. */
type EmbedFormat = 'json' | 'jsonld';

export class SchemaRegistry {
  readonly schemas: Record<string, JsonSchema> = {};

  /** `hidden`: per resource, properties the reader may not see (property `security`), left out of its schemas. */
  constructor(
    private readonly api: ApiMetadata,
    private readonly hidden?: ReadonlyMap<string, readonly string[]>,
  ) {}

  private get hydraPrefix(): boolean {
    return this.api.settings.hydraPrefix;
  }

  /**
   * The resource's schema over `selected` (default: every property) less what the reader may not see, with
   * an `examples` entry on each property that can have one.
   */
  private resource(
    resource: ResourceMetadata,
    mode: SchemaMode,
    selected: readonly PropertyMetadata[] = resource.properties,
  ): JsonSchema {
    const names = this.hidden?.get(resource.shortName);
    const shown = names ? selected.filter((p) => !names.includes(p.name)) : selected;
    const schema = resourceSchema(resource, mode, shown);
    const properties = schema.properties as Record<string, JsonSchema>;
    for (const p of shown) {
      const example = propertyExample(p, this.api);
      if (example !== undefined) properties[p.name] = { ...properties[p.name], examples: [example] };
    }
    return schema;
  }

  private add(name: string, build: () => JsonSchema): JsonSchema {
    if (!(name in this.schemas)) {
      this.schemas[name] = {}; // reserved first: builders may register others
      this.schemas[name] = build();
    }
    return ref(name);
  }

  /**
   * What the operation's responses hold in plain JSON. An operation whose serialization groups select
   * the properties gets its own schema, named after the groups as API Platform names it (`Book-read`).
   */
  output(op: OperationMetadata): JsonSchema {
    const groups = contextGroups(optionValue(op, 'normalizationContext'));
    return this.add(`${op.shortName}${groupSuffix(groups)}`, () => this.outputSchema(op, groups, 'json'));
  }

  /** What responses hold in JSON-LD: the properties plus `@id` and `@type` (and `@context` at the top): `Book.jsonld-read`. */
  outputJsonLd(op: OperationMetadata): JsonSchema {
    const { resource } = op;
    const groups = contextGroups(optionValue(op, 'normalizationContext'));
    return this.add(`${op.shortName}.jsonld${groupSuffix(groups)}`, () => {
      return jsonLdItem(resource, op.shortName, this.outputSchema(op, groups, 'jsonld'));
    });
  }

  /** A resource object in responses as JSON:API writes it (jsonapi-schemas.ts): `Book.jsonapi-read`. */
  outputJsonApi(op: OperationMetadata): JsonSchema {
    const groups = contextGroups(optionValue(op, 'normalizationContext'));
    return this.add(`${op.shortName}.jsonapi${groupSuffix(groups)}`, () =>
      jsonApiResourceObject(this.api, op.resource, this.outputSchema(op, groups), 'output'),
    );
  }

  /** The resource object a JSON:API request body's `data` holds: `Book.jsonapi.input-write`. */
  inputJsonApi(op: OperationMetadata): JsonSchema {
    const groups = denormalizationGroups(op, this.api.settings);
    return this.add(`${op.shortName}.jsonapi.input${groupSuffix(groups)}`, () =>
      jsonApiResourceObject(this.api, op.resource, this.inputSchema(op, groups), 'input'),
    );
  }

  /** The JSON:API error document. */
  errorJsonApi(): JsonSchema {
    return this.add('Error.jsonapi', () => JSONAPI_ERRORS);
  }

  /** What POST and PUT bodies may hold: the accepted properties, with the constraints that validate them. */
  input(op: OperationMetadata): JsonSchema {
    const groups = denormalizationGroups(op, this.api.settings);
    return this.add(`${op.shortName}.input${groupSuffix(groups)}`, () => this.inputSchema(op, groups));
  }

  /** What a PATCH body (JSON Merge Patch) may hold: the input schema with nothing required, null removing a value. */
  mergePatch(op: OperationMetadata): JsonSchema {
    const groups = denormalizationGroups(op, this.api.settings);
    return this.add(`${op.shortName}.jsonMergePatch${groupSuffix(groups)}`, () => {
      const { required: _required, ...schema } = this.inputSchema(op, groups);
      return {
        ...schema,
        description: joinText(
          schema.description as string | undefined,
          'JSON Merge Patch (RFC 7396): the properties to change; null removes an optional value.',
        ),
      };
    });
  }

  /** `embed`: the format whose embedded relations are described (JSON:API keeps relationships: none). */
  private outputSchema(op: OperationMetadata, groups: string[] | undefined, embed?: EmbedFormat): JsonSchema {
    if (!groups) return this.resource(op.resource, 'output');
    const schema = this.resource(op.resource, 'output', shownProperties(op, this.api.settings));
    return embed ? this.withEmbedded(schema, op.resource, groups, embed) : schema;
  }

  /**
   * Embedded relations (pipeline/representation/embedding.ts): the relation's value is the target's output
   * schema of the same groups (API Platform's `Speaker-read`, `Speaker.jsonld-read`), or an IRI where the
   * nesting stops (an item already on the path, the level bound, an IRI naming no item).
   */
  private withEmbedded(schema: JsonSchema, resource: ResourceMetadata, groups: string[], embed: EmbedFormat) {
    const properties = schema.properties as Record<string, JsonSchema>;
    for (const p of resource.properties) {
      const target = p.relation && properties[p.name] ? this.api.resource(p.relation) : undefined;
      const shown = target && embeddedProperties(target, groups, 'output');
      if (!target || !shown) continue;
      const one = { anyOf: [this.embedded(target, groups, shown, embed), iri(responseIriExample(target))] };
      const { type: _type, format: _format, items: _items, examples: _examples, ...kept } = properties[p.name];
      properties[p.name] = { ...kept, ...(p.array ? { type: 'array', items: one } : one) };
    }
    return schema;
  }

  private embedded(
    target: ResourceMetadata,
    groups: string[],
    shown: readonly PropertyMetadata[],
    embed: EmbedFormat,
  ): JsonSchema {
    const name = `${target.shortName}${embed === 'jsonld' ? '.jsonld' : ''}${groupSuffix(groups)}`;
    return this.add(name, () => {
      const schema = this.withEmbedded(this.resource(target, 'output', shown), target, groups, embed);
      return embed === 'jsonld' ? jsonLdItem(target, target.shortName, schema) : schema;
    });
  }

  private inputSchema(op: OperationMetadata, groups: string[] | undefined): JsonSchema {
    if (!groups) return this.resource(op.resource, 'input');
    return this.withWritableLinks(
      op.resource,
      this.resource(op.resource, 'input', acceptedProperties(op, this.api.settings)),
      groups,
    );
  }

  /**
   * Where the groups make a relation a writable link, its value is an IRI or a nested document
   * (docs/behaviour.md, "Nested documents on write"): the target's input schema under the same groups, named as
   * the input schemas are (`Speaker.input-talk.write`), with `@id` naming a stored item to change.
   */
  private withWritableLinks(resource: ResourceMetadata, schema: JsonSchema, groups: string[]): JsonSchema {
    const properties = schema.properties as Record<string, JsonSchema>;
    for (const p of resource.properties) {
      const target = p.relation === undefined ? undefined : this.api.resource(p.relation);
      const embedded = target?.identifier && embeddedProperties(target, groups, 'input');
      if (!properties[p.name] || !target || !embedded) continue;
      const nested = this.add(`${target.shortName}.input${groupSuffix(groups)}`, () => {
        const { required, ...own } = this.resource(target, 'input', embedded);
        (own.properties as Record<string, JsonSchema>)['@id'] = {
          ...iri(iriExample(target)),
          description: 'The IRI of a stored item to change with the other properties; absent: a new item.',
        };
        // What a new item requires; an object naming a stored item changes only what it gives.
        if (required) own.anyOf = [{ required: ['@id'] }, { required }];
        return this.withWritableLinks(target, own, groups);
      });
      const { description, ...value } = properties[p.name];
      properties[p.name] = p.array
        ? { ...value, ...(description !== undefined && { description }), items: { anyOf: [value.items, nested] } }
        : { ...(description !== undefined && { description }), anyOf: [value, nested] };
    }
    return schema;
  }

  /**
   * A JSON-LD collection of the operation's items: the Hydra envelope (in the operation's vocabulary, prefixed or
   * not) and its members, merged into one object schema (`Book.jsonld.collection-read`) so that a viewer draws
   * it as an object; an `allOf` of the envelope and the members is drawn as "any" by Swagger UI.
   */
  collectionJsonLd(op: OperationMetadata): JsonSchema {
    const keys = operationHydraKeys(op, this.api.settings);
    const groups = contextGroups(optionValue(op, 'normalizationContext'));
    const name = `${op.shortName}.jsonld.${keys.prefixed ? 'hydraCollection' : 'collection'}${groupSuffix(groups)}`;
    return this.add(name, () => {
      const members: JsonSchema = {
        type: 'object',
        properties: { [keys.member]: { type: 'array', items: this.outputJsonLd(op) } },
        required: [keys.member],
      };
      const example = {
        collection: collectionIriExample(op),
        context: contextIri(op.shortName),
        page: this.api.settings.pageParameter,
      };
      return merged(hydraCollection(keys, example), members);
    });
  }

  /** The plain problem document (RFC 9457) of every error. */
  error(): JsonSchema {
    return this.add('Error', () => ({
      type: 'object',
      description: 'A problem document (RFC 9457).',
      properties: {
        type: { type: 'string', description: 'An IRI identifying the problem, `/errors/<status>`.' },
        title: { type: 'string', description: 'A short summary of the problem.' },
        status: { type: 'integer', description: 'The HTTP status code.' },
        detail: { type: 'string', description: 'What went wrong, for a person.' },
      },
      required: ['type', 'title', 'status', 'detail'],
    }));
  }

  /** The Hydra error document (JSON-LD), served unless the client prefers plain JSON. */
  errorJsonLd(): JsonSchema {
    const p = this.hydraPrefix ? 'hydra:' : '';
    return this.add('Error.jsonld', () => ({
      type: 'object',
      description: 'The Hydra error document.',
      properties: {
        '@context': iri('/contexts/Error'),
        '@id': iri('/errors/404'),
        '@type': { type: 'string', const: `${p}Error` },
        [`${p}title`]: { type: 'string' },
        [`${p}description`]: { type: 'string' },
        type: { type: 'string' },
        status: { type: 'integer' },
        detail: { type: 'string' },
      },
      required: ['@id', '@type', 'status', 'detail'],
    }));
  }

  constraintViolation(): JsonSchema {
    return this.add('ConstraintViolation', () => ({
      type: 'object',
      description: 'Validation failed: one entry per violated constraint.',
      properties: {
        status: { type: 'integer', const: 422 },
        violations: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              propertyPath: {
                type: 'string',
                description: 'The property that violates a constraint (empty for the whole item).',
              },
              message: { type: 'string', description: 'The message of the constraint.' },
              code: { type: 'string', description: 'The stable code of the constraint (a UUID).' },
            },
            required: ['propertyPath', 'message', 'code'],
          },
        },
        detail: { type: 'string' },
        type: { type: 'string' },
        title: { type: 'string' },
      },
      required: ['status', 'violations', 'detail', 'type'],
    }));
  }

  constraintViolationJsonLd(): JsonSchema {
    const p = this.hydraPrefix ? 'hydra:' : '';
    this.constraintViolation();
    return this.add('ConstraintViolation.jsonld', () =>
      merged(
        {
          type: 'object',
          properties: {
            '@context': iri('/contexts/ConstraintViolation'),
            '@id': iri('/validation_errors/c1051bb4-d103-4f74-8988-acbcafc7fdc3'),
            '@type': { type: 'string', const: 'ConstraintViolation' },
            [`${p}title`]: { type: 'string' },
            [`${p}description`]: { type: 'string' },
          },
          required: ['@id', '@type'],
        },
        this.schemas.ConstraintViolation,
      ),
    );
  }
}

const contextIri = (shortName: string): string => `/contexts/${shortName}`;

/**
 * The schema of an item of `resource` in JSON-LD: `schema` and the keys JSON-LD adds, exemplified (`shortName`:
 * the operation's, which names the item's class and context).
 */
function jsonLdItem(resource: ResourceMetadata, shortName: string, schema: JsonSchema): JsonSchema {
  const item = merged(HYDRA_ITEM, schema);
  const properties = item.properties as Record<string, JsonSchema>;
  properties['@id'] = { ...properties['@id'], examples: [responseIriExample(resource)] };
  properties['@type'] = { ...properties['@type'], examples: [shortName] };
  properties['@context'] = { ...properties['@context'], examples: [contextIri(shortName)] };
  return item;
}

/** The keys JSON-LD adds to an item. */
const HYDRA_ITEM: JsonSchema = {
  type: 'object',
  properties: {
    '@context': { ...iri(), description: 'The JSON-LD context (on the top-level document only).' },
    '@id': { ...iri(), description: 'The IRI of the item.' },
    '@type': { type: 'string', description: 'The resource class.' },
  },
  required: ['@id', '@type'],
};

/**
 * The Hydra collection envelope in the vocabulary of `keys`, its IRIs exemplified from the collection's
 * (`/books`, `/books?page=2`).
 */
function hydraCollection(keys: HydraKeys, example: { collection: string; context: string; page: string }): JsonSchema {
  const page = (n: number): string => pageIriExample(example.collection, example.page, n);
  return {
    type: 'object',
    properties: {
      '@context': iri(example.context),
      '@id': iri(example.collection),
      '@type': { type: 'string', const: keys.collectionType },
      [keys.totalItems]: {
        type: 'integer',
        minimum: 0,
        description: 'How many items the whole collection holds (absent under partial pagination).',
      },
      [keys.view]: {
        type: 'object',
        description:
          'The page this document shows and its neighbours (absent when the collection is not paginated and no parameter applies).',
        properties: {
          '@id': iri(page(2)),
          '@type': { type: 'string', const: keys.viewType },
          [keys.first]: iri(page(1)),
          [keys.last]: iri(page(5)),
          [keys.previous]: iri(page(1)),
          [keys.next]: iri(page(3)),
        },
      },
      [keys.search]: {
        type: 'object',
        description: 'The IRI template of the query parameters the operation understands.',
        properties: {
          '@type': { type: 'string', const: keys.iriTemplateType },
          [keys.template]: { type: 'string' },
          [keys.variableRepresentation]: { type: 'string' },
          [keys.mapping]: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                '@type': { type: 'string' },
                variable: { type: 'string' },
                property: { type: ['string', 'null'] },
                required: { type: 'boolean' },
              },
            },
          },
        },
      },
    },
    required: ['@id', '@type'],
  };
}

/** One object schema with the properties and required names of both (`base` first). */
function merged(base: JsonSchema, schema: JsonSchema): JsonSchema {
  const required = [
    ...((base.required as string[] | undefined) ?? []),
    ...((schema.required as string[] | undefined) ?? []),
  ];
  return {
    ...schema,
    type: 'object',
    properties: { ...(base.properties as object), ...(schema.properties as object) },
    ...(required.length > 0 && { required: [...new Set(required)] }),
  };
}

/**
 * `-read_list` for the groups `["read", "list"]`: one schema per set of groups. Characters a component
 * name may not hold (OpenAPI allows `A-Z a-z 0-9 . _ -`) become `_`: `book:read` → `book_read`.
 */
const groupSuffix = (groups: string[] | undefined): string =>
  groups ? `-${groups.join('_')}`.replace(/[^A-Za-z0-9._-]/g, '_') : '';

export function joinText(...parts: (string | undefined)[]): string {
  return parts.filter((p): p is string => typeof p === 'string' && p !== '').join('\n\n');
}
