/**
 * The Hydra API documentation (`/docs.jsonld`, docs/behaviour.md, "OpenAPI and the HTML reference"): one class per
 * resource with its properties and item operations, the entrypoint class whose properties
 * carry the collection operations, hidden routes left out, deprecations as `owl:deprecated`.
 * The context is inlined and self-contained (no remote context URL).
 */
import { acceptedProperties, shownProperties } from '../metadata/property-access.js';
import { takesBody } from '../metadata/operation-facts.js';
import { optionValue, resourceOption } from '../metadata/options.js';
import type { ApiMetadata, OperationMetadata, PropertyMetadata, ResourceMetadata } from '../metadata/types.js';
import { hubNote } from '../realtime/index.js';
import { embeddingPlan } from '../pipeline/representation/embedding.js';
import { LABEL_IRI, labelProperty } from '../metadata/label-property.js';
import { entrypointCollection } from './documents.js';

/** The part of Hydra's core context this document uses, plus the vocabularies it names. */
const HYDRA_CONTEXT = {
  hydra: 'http://www.w3.org/ns/hydra/core#',
  rdf: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#',
  rdfs: 'http://www.w3.org/2000/01/rdf-schema#',
  xsd: 'http://www.w3.org/2001/XMLSchema#',
  owl: 'http://www.w3.org/2002/07/owl#',
  ApiDocumentation: 'hydra:ApiDocumentation',
  Class: 'hydra:Class',
  Link: 'hydra:Link',
  Operation: 'hydra:Operation',
  SupportedProperty: 'hydra:SupportedProperty',
  Collection: 'hydra:Collection',
  title: 'hydra:title',
  description: 'hydra:description',
  entrypoint: { '@id': 'hydra:entrypoint', '@type': '@id' },
  supportedClass: { '@id': 'hydra:supportedClass', '@type': '@vocab' },
  supportedProperty: { '@id': 'hydra:supportedProperty', '@type': '@id' },
  supportedOperation: { '@id': 'hydra:supportedOperation', '@type': '@id' },
  property: { '@id': 'hydra:property', '@type': '@vocab' },
  required: 'hydra:required',
  readable: 'hydra:readable',
  writeable: 'hydra:writeable',
  method: 'hydra:method',
  expects: { '@id': 'hydra:expects', '@type': '@vocab' },
  returns: { '@id': 'hydra:returns', '@type': '@vocab' },
  expectsHeader: 'hydra:expectsHeader',
  headerName: 'hydra:headerName',
  possibleValue: 'hydra:possibleValue',
  label: 'rdfs:label',
  memberAssertion: 'hydra:memberAssertion',
  object: 'hydra:object',
};

const XSD: Record<string, string> = {
  int: 'xsd:integer',
  number: 'xsd:decimal',
  string: 'xsd:string',
  bool: 'xsd:boolean',
  datetime: 'xsd:dateTime',
  date: 'xsd:date',
};

const ACTIONS: Record<string, { type: string | string[]; verb: string }> = {
  GET: { type: ['Operation', 'schema:FindAction'], verb: 'Retrieves a {} resource.' },
  PUT: { type: ['Operation', 'schema:ReplaceAction'], verb: 'Replaces the {} resource.' },
  PATCH: { type: 'Operation', verb: 'Updates the {} resource.' },
  DELETE: { type: ['Operation', 'schema:DeleteAction'], verb: 'Deletes the {} resource.' },
  POST: { type: ['Operation', 'schema:CreateAction'], verb: 'Creates a {} resource.' },
};

const lcfirst = (s: string): string => s.charAt(0).toLowerCase() + s.slice(1);
const sortKeys = (o: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1)));

function operationDoc(op: OperationMetadata, patchFormats: string[]): Record<string, unknown> {
  const name = op.shortName;
  const action = ACTIONS[op.method] ?? { type: 'Operation', verb: `${op.method} on the {} resource.` };
  const collectionGet = op.kind === 'GetCollection';
  const defaultDescription = collectionGet
    ? `Retrieves the collection of ${name} resources.`
    : action.verb.replace('{}', name);
  const returned = op.isCollection ? 'Collection' : name;
  const description = optionValue(op, 'description');
  const doc: Record<string, unknown> = {
    '@type': action.type,
    method: op.method,
    title: op.name.startsWith('_api_')
      ? `${op.method.toLowerCase()}${name}${collectionGet ? 'Collection' : ''}`
      : op.name,
    description: typeof description === 'string' ? description : defaultDescription,
    returns: op.method === 'DELETE' || optionValue(op, 'output') === false ? 'owl:Nothing' : returned,
  };
  if (['POST', 'PUT', 'PATCH'].includes(op.method) && optionValue(op, 'input') !== false) doc.expects = name;
  if (op.method === 'PATCH') doc.expectsHeader = [{ headerName: 'Content-Type', possibleValue: patchFormats }];
  if (optionValue(op, 'deprecationReason')) doc['owl:deprecated'] = true;
  return sortKeys(doc);
}

/**
 * What a property's values are: the related class; `xsd:array` for a list of plain values (API Platform Admin's
 * reading of a list); else the XSD datatype. An enum adds a second range, an OWL enumerated datatype of its values.
 */
function rangeOf(p: PropertyMetadata): unknown {
  if (p.relation) return `#${p.relation}`;
  const base = p.array ? 'xsd:array' : (XSD[p.type] ?? 'rdfs:Literal');
  return p.enum ? [base, { '@type': 'rdfs:Datatype', 'owl:oneOf': { '@list': p.enum } }] : base;
}

/**
 * Readable when an operation of the resource shows the property, writeable when one accepts it
 * (serialization groups may leave it out of every one). `name`: the class, the resource's or an operation's shortName.
 * A relation is a `Link` (its values are IRIs to follow) unless an operation embeds its items (API Platform's
 * readableLink, docs/behaviour.md "Embedded relations"): then an `rdf:Property` whose range is the target class.
 */
function propertyDoc(
  api: ApiMetadata,
  resource: ResourceMetadata,
  name: string,
  p: PropertyMetadata,
): Record<string, unknown> {
  const { settings } = api;
  const ops = resource.operations.filter((o) => !o.hidden);
  const embedded = ops.some((o) => embeddingPlan(o, api)?.relationsOf(resource).has(p.name));
  const property: Record<string, unknown> = {
    '@id': labelProperty(api, resource) === p ? LABEL_IRI : `#${name}/${p.name}`,
    '@type': p.relation && !embedded ? 'Link' : 'rdf:Property',
    label: p.name,
    domain: `#${name}`,
    range: rangeOf(p),
  };
  if (p.relation && !p.array) property['owl:maxCardinality'] = 1;
  const doc: Record<string, unknown> = {
    '@type': 'SupportedProperty',
    property,
    title: p.name,
    required: p.required,
    readable: ops.some((o) => shownProperties(o, settings).includes(p)),
    // An identifier is written by a POST only, and only one the client chooses (a store-assigned one is read-only).
    writeable: ops.some(
      (o) =>
        takesBody(o.method) && (!p.identifier || o.method === 'POST') && acceptedProperties(o, settings).includes(p),
    ),
  };
  if (p.description) doc.description = p.description;
  return doc;
}

const visible = (r: ResourceMetadata): OperationMetadata[] => r.operations.filter((o) => !o.hidden);

/** The class `name` of resource `r`: its own, or one of an operation's shortName (what that operation returns). */
function classDoc(api: ApiMetadata, r: ResourceMetadata, name: string, origin: string): Record<string, unknown> {
  const cls: Record<string, unknown> = {
    '@id': `#${name}`,
    '@type': 'Class',
    title: name,
    ...(r.description || hubNote(r, api.settings, origin)
      ? { description: [r.description, hubNote(r, api.settings, origin)].filter(Boolean).join(' ') }
      : {}),
    supportedProperty: r.properties.map((p) => propertyDoc(api, r, name, p)),
    supportedOperation: visible(r)
      .filter((o) => o.shortName === name && o.kind !== 'GetCollection')
      .filter((o) => !(o.method === 'POST' && o.path === r.collectionPath))
      // The resource's own class holds the operations on its items' IRIs: one show, edit and delete for a
      // client (named operations at other paths are in OpenAPI).
      .filter((o) => name !== r.shortName || o.path === r.itemPath)
      .map((o) => operationDoc(o, api.settings.patchFormats)),
  };
  if (resourceOption(r, 'deprecationReason')) cls['owl:deprecated'] = true;
  return cls;
}

/** The entrypoint's link to the collection of resource `r` (one that has an entrypoint collection). */
function entrypointPropertyDoc(api: ApiMetadata, r: ResourceMetadata): Record<string, unknown> {
  const key = lcfirst(r.shortName);
  // The collection the entrypoint links to and the POST at its path: one list and one create for a client.
  const list = entrypointCollection(r)!;
  const ops = [list, ...visible(r).filter((o) => o.method === 'POST' && o.path === list.path)];
  const memberClass = `#${list.shortName}`;
  const doc: Record<string, unknown> = {
    '@type': 'SupportedProperty',
    property: {
      '@id': `#Entrypoint/${key}`,
      '@type': 'Link',
      label: key,
      domain: '#Entrypoint',
      // The collection's member class, in both forms clients read: OWL's restriction (API Platform 3) and
      // Hydra's member assertion (API Platform 4); a read-only resource has no POST to tell it otherwise.
      range: [
        'hydra:Collection',
        {
          'owl:equivalentClass': {
            'owl:onProperty': { '@id': 'hydra:member' },
            'owl:allValuesFrom': { '@id': memberClass },
          },
        },
      ],
      memberAssertion: { property: 'rdf:type', object: { '@id': memberClass } },
      supportedOperation: ops.map((o) => operationDoc(o, api.settings.patchFormats)),
    },
    title: `get${r.shortName}Collection`,
    readable: true,
    writeable: false,
  };
  if (resourceOption(r, 'deprecationReason')) doc['owl:deprecated'] = true;
  return doc;
}

export function hydraDocumentation(api: ApiMetadata, origin: string): Record<string, unknown> {
  // One class per resource, and one per operation shortName (the @type of what that operation returns).
  const classes = api.resources.flatMap((r) =>
    [...new Set([r.shortName, ...visible(r).map((o) => o.shortName)])].map((name) => classDoc(api, r, name, origin)),
  );
  const entrypointProperties = api.resources
    .filter((r) => entrypointCollection(r))
    .map((r) => entrypointPropertyDoc(api, r));
  classes.push({
    '@id': '#Entrypoint',
    '@type': 'Class',
    title: 'Entrypoint',
    supportedProperty: entrypointProperties,
    supportedOperation: [
      {
        '@type': 'Operation',
        method: 'GET',
        title: 'index',
        description: 'The API entrypoint.',
        returns: '#Entrypoint',
      },
    ],
  });
  return {
    '@context': [
      HYDRA_CONTEXT,
      {
        '@vocab': `${origin}/docs.jsonld#`,
        schema: 'https://schema.org/',
        domain: { '@id': 'rdfs:domain', '@type': '@id' },
        range: { '@id': 'rdfs:range', '@type': '@id' },
        subClassOf: { '@id': 'rdfs:subClassOf', '@type': '@id' },
      },
    ],
    '@id': '/docs.jsonld',
    '@type': 'ApiDocumentation',
    title: api.title,
    ...(api.description ? { description: api.description } : {}),
    entrypoint: '/',
    supportedClass: classes,
  };
}
