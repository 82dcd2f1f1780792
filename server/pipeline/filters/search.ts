/**
 * The `search` filter: `?title=Foo` (or `?title[]=A&title[]=B`), equality or a text match by the
 * property's strategy (exact, partial, start, end, word_start; `i…` ignores case); on a relation, an
 * IRI or an identifier. Other types compare for equality whatever the strategy. On a list (`tags: string[]`,
 * `authors: Author[]`) the same test applies to each element: an item matches when one element does (the
 * store's element-wise conditions).
 */
import type { PropertyMetadata } from '../../metadata/types.js';
import { badRequest } from '../../protocol/errors.js';
import type { Condition } from '../../store/types.js';
import type { FilterKindModule } from './kind.js';
import { valueSchema } from './schemas.js';
import { scalar, typedValue, type Ctx } from './values.js';

/** Values one search filter takes at once (`?title[]=a&title[]=b…`, or a list in a QUERY body). */
export const MAX_FILTER_VALUES = 1000;

const STRATEGY_TEXT: Record<string, string> = {
  exact: 'equals the value',
  partial: 'contains the value',
  start: 'starts with the value',
  end: 'ends with the value',
  word_start: 'has a word starting with the value',
};

function searchConditions(ctx: Ctx, prop: PropertyMetadata, strategy: string, raw: unknown): Condition[] {
  const values = (Array.isArray(raw) ? raw : [raw]).map(scalar).filter((v): v is string => v !== undefined);
  if (values.length === 0) return [];
  if (values.length > MAX_FILTER_VALUES) {
    throw badRequest(
      `Too many values for the "${prop.name}" filter: ${values.length} given, at most ${MAX_FILTER_VALUES} are accepted.`,
    );
  }
  const caseInsensitive = strategy.startsWith('i');
  const mode = (caseInsensitive ? strategy.slice(1) : strategy) as 'exact' | 'partial' | 'start' | 'end' | 'word_start';
  if ((mode === 'exact' && !caseInsensitive) || prop.type !== 'string' || prop.relation) {
    const typed = values.map((v) => typedValue(ctx, prop, v)).filter((v) => v !== undefined);
    if (typed.length === 0) return []; // no value the property can hold: ignored, as API Platform does
    return [
      typed.length === 1
        ? { op: 'eq', field: prop.name, value: typed[0] }
        : { op: 'in', field: prop.name, values: typed },
    ];
  }
  const matches: Condition[] = values.map((value) => ({ op: 'match', field: prop.name, mode, value, caseInsensitive }));
  return matches.length === 1 ? matches : [{ op: 'or', conditions: matches }];
}

function searchText(p: PropertyMetadata, strategy: string): string {
  // A list matches when one of its elements does.
  const subject = p.array ? `${p.name} has an element that` : `${p.name}`;
  if (p.relation)
    return `Items whose ${p.array ? `${p.name} holds` : `${p.name} is`} the ${p.relation} given by its IRI (\`/…/1\`) or its identifier.`;
  const insensitive = strategy.startsWith('i');
  const mode = insensitive ? strategy.slice(1) : strategy;
  // The runtime compares other types for equality whatever the strategy.
  if (p.type !== 'string') return `Items whose ${subject} equals the value.`;
  return `Items whose ${subject} ${STRATEGY_TEXT[mode] ?? STRATEGY_TEXT.exact}${insensitive ? ', ignoring case' : ''}. The value is literal text, never a pattern.`;
}

export const search: FilterKindModule = {
  variables: (_settings, property) => [property, `${property}[]`],
  conditions: (ctx, prop, setting, criteria) =>
    criteria[prop.name] === undefined ? [] : searchConditions(ctx, prop, setting ?? 'exact', criteria[prop.name]),
  documentedVariables: (_settings, p, setting) => {
    const text = searchText(p, setting ?? 'exact');
    return [
      { name: p.name, schema: valueSchema(p), description: text },
      {
        name: `${p.name}[]`,
        schema: { type: 'array', items: valueSchema(p) },
        description: `${text} Repeat it to match any of several values.`,
        array: true,
      },
    ];
  },
  namedValue: (p, setting) => ({
    schema: { anyOf: [valueSchema(p), { type: 'array', items: valueSchema(p) }] },
    text: `${searchText(p, setting ?? 'exact')} Several values match any of them.`,
    object: false,
  }),
  bodyEntry: (_settings, p, setting) => ({
    key: p.name,
    values: [valueSchema(p), { type: 'array', items: valueSchema(p) }],
    text: searchText(p, setting ?? 'exact'),
  }),
};
