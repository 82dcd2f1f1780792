/**
 * The `match` filter (API Platform's Elasticsearch MatchFilter): `?title=quick fox`, a full-text match of the
 * words of the value against the analysed text (an item matches when its text has any of the words, as
 * Elasticsearch's `match` query); `?title[]=a&title[]=b` matches either. Only the search index answers it.
 */
import type { Condition } from '../../store/types.js';
import { MAX_FILTER_VALUES } from './search.js';
import type { FilterKindModule } from './kind.js';
import { badRequest } from '../../protocol/errors.js';
import { scalar } from './values.js';

const TEXT = 'Full-text match: items whose text has any of the words of the value (analysed by the search index).';

export const match: FilterKindModule = {
  variables: (_settings, property) => [property, `${property}[]`],
  conditions: (_ctx, prop, _setting, criteria) => {
    const raw = criteria[prop.name];
    if (raw === undefined) return [];
    const values = (Array.isArray(raw) ? raw : [raw])
      .map(scalar)
      .filter((v): v is string => v !== undefined && v.trim() !== '');
    if (values.length > MAX_FILTER_VALUES)
      throw badRequest(`Too many values for the "${prop.name}" filter: at most ${MAX_FILTER_VALUES} are accepted.`);
    const texts: Condition[] = values.map((value) => ({ op: 'text', field: prop.name, value }));
    return texts.length <= 1 ? texts : [{ op: 'or', conditions: texts }];
  },
  documentedVariables: (_settings, p) => [
    { name: p.name, schema: { type: 'string' }, description: `${p.name}: ${TEXT}` },
    {
      name: `${p.name}[]`,
      schema: { type: 'array', items: { type: 'string' } },
      description: `${p.name}: ${TEXT} Repeat it to match any of several texts.`,
      array: true,
    },
  ],
  namedValue: () => ({
    schema: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
    text: TEXT,
    object: false,
  }),
  bodyEntry: (_settings, p) => ({
    key: p.name,
    values: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
    text: TEXT,
  }),
};
