/**
 * Filter kinds of `filter <name>: <kind> { properties: … }`. `properties` is a list of property
 * names, or, for kinds with a per-property setting, a map from name to that setting.
 */
import type { FieldSpec, FilterKindSpec, FilterPropertyType, ValueType } from './types.js';

/** The operators of a range filter (`price[gt]=10`, `price[between]=10..20`), in the order the documents list them. */
export const RANGE_OPERATORS = ['between', 'gt', 'gte', 'lt', 'lte'] as const;
/** The operators of a date filter (`publishedAt[after]=…`): `before` and `after` include the date. */
export const DATE_OPERATORS = ['before', 'strictly_before', 'after', 'strictly_after'] as const;
export type RangeOperator = (typeof RANGE_OPERATORS)[number];
export type DateOperator = (typeof DATE_OPERATORS)[number];

const NAMES: ValueType = { kind: 'list', of: { kind: 'string' } };

const DESCRIPTION: FieldSpec = {
  type: { kind: 'string' },
  doc: 'Shown in the documentation of the filter parameters.',
};

function namesOnly(): Record<string, FieldSpec> {
  return {
    properties: { type: NAMES, required: true, doc: 'Names of the filtered properties.' },
    description: DESCRIPTION,
  };
}

function withSetting(setting: ValueType, what: string): Record<string, FieldSpec> {
  return {
    properties: {
      type: { kind: 'oneOf', of: [NAMES, { kind: 'map', of: setting }] },
      required: true,
      doc: `Names of the filtered properties, or a map from name to its ${what}.`,
    },
    description: DESCRIPTION,
  };
}

const SEARCH_STRATEGY: ValueType = {
  kind: 'enum',
  values: ['exact', 'partial', 'start', 'end', 'word_start', 'iexact', 'ipartial', 'istart', 'iend', 'iword_start'],
};
const DIRECTION: ValueType = { kind: 'enum', values: ['ASC', 'DESC'], caseInsensitive: true };
const NULL_STRATEGY: ValueType = {
  kind: 'enum',
  values: ['exclude_null', 'include_null_before', 'include_null_after', 'include_null_before_and_after'],
};

const SCALARS: readonly FilterPropertyType[] = ['int', 'number', 'string', 'bool', 'datetime', 'date'];

const FILTER_KIND_SPECS = [
  {
    name: 'search' as const,
    doc: '`?title=Foo` (or `?title[]=A&title[]=B`): equality or text match by strategy; on a relation, IRI or id.',
    perProperty: {
      type: SEARCH_STRATEGY,
      default: 'exact',
      doc: 'Match strategy: exact, contains (partial), starts (start), ends (end), word start; `i…` ignore case.',
    },
    fields: withSetting(SEARCH_STRATEGY, 'strategy'),
    propertyTypes: {
      types: [...SCALARS, 'relation'],
      lists: true,
      doc: 'scalars, relations and lists of them (a list matches when one of its elements does); not `json`',
    },
  },
  {
    name: 'range' as const,
    doc: '`?price[gt]=10`, `[gte]`, `[lt]`, `[lte]`, `[between]=10..20`: numeric bounds, combined with AND.',
    fields: namesOnly(),
    propertyTypes: {
      types: ['int', 'number', 'datetime', 'date'],
      lists: false,
      doc: '`int`, `number`, `datetime`, `date`',
    },
  },
  {
    name: 'order' as const,
    doc: '`?order[title]=desc&order[id]=asc`: sort; the order of the keys sets the priority.',
    perProperty: { type: DIRECTION, default: 'ASC', doc: 'Direction used when the client sends no value.' },
    fields: {
      ...withSetting(DIRECTION, 'default direction'),
      nulls_comparison: {
        type: { kind: 'enum', values: ['nulls_smallest', 'nulls_largest', 'nulls_always_first', 'nulls_always_last'] },
        doc: 'Where null values sort. Not supported yet: nulls always sort as the smallest values (`nulls_smallest`).',
        unsupported: {},
      },
    },
    propertyTypes: {
      types: [...SCALARS, 'relation'],
      lists: false,
      doc: 'scalars and relations (by their IRI as text); not lists nor `json`',
    },
  },
  {
    name: 'exists' as const,
    doc: '`?exists[publishedAt]=true|false|1|0`: the property is (not) null; an empty list counts as null.',
    fields: namesOnly(),
    propertyTypes: { types: [...SCALARS, 'json', 'relation'], lists: true, doc: 'every type' },
  },
  {
    name: 'boolean' as const,
    doc: '`?available=true|false|1|0`: boolean equality.',
    fields: namesOnly(),
    propertyTypes: { types: ['bool'], lists: false, doc: '`bool`' },
  },
  {
    name: 'date' as const,
    doc: '`?publishedAt[after]=2024-01-01`, `[before]` (inclusive), `[strictly_after]`, `[strictly_before]`.',
    perProperty: {
      type: NULL_STRATEGY,
      default: 'exclude_null',
      doc: 'How items whose date is null are treated by the bounds.',
    },
    fields: withSetting(NULL_STRATEGY, 'null strategy'),
    propertyTypes: { types: ['datetime', 'date'], lists: false, doc: '`datetime`, `date`' },
  },
  {
    name: 'match' as const,
    doc:
      '`?title=quick fox`: full-text match in the search index (the words of the value against the analysed text); only on ' +
      '`elasticsearch` operations.',
    fields: namesOnly(),
    propertyTypes: { types: ['string'], lists: true, doc: '`string` and lists of strings' },
  },
  {
    name: 'term' as const,
    doc:
      '`?isbn=123` (or `?isbn[]=A&isbn[]=B`): exact value in the search index; on a relation, IRI or id; only on ' +
      '`elasticsearch` operations.',
    fields: namesOnly(),
    propertyTypes: {
      types: [...SCALARS, 'relation'],
      lists: true,
      doc: 'scalars, relations and lists of them (a list matches when one of its elements does); not `json`',
    },
  },
] satisfies readonly FilterKindSpec[];

export const FILTER_KINDS: readonly FilterKindSpec[] = FILTER_KIND_SPECS;

/** The kinds an `elasticsearch` read answers from the search index (docs/elasticsearch.md). */
export const INDEX_FILTER_KINDS: readonly string[] = ['match', 'term', 'order', 'range'];
/** The kinds only the search index answers: on an operation that reads the store they are checker errors. */
export const INDEX_ONLY_FILTER_KINDS: readonly string[] = ['match', 'term'];

/** The filter kinds' names: the runtime's table of filter modules is typed by them. */
export type FilterKindName = (typeof FILTER_KIND_SPECS)[number]['name'];
