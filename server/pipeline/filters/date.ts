/**
 * The `date` filter: `?publishedAt[after]=2024-01-01`, `[before]` (both inclusive), `[strictly_after]`,
 * `[strictly_before]`; the property's null strategy says where items without a date stand.
 */
import { DATE_OPERATORS, type DateOperator } from '../../../grammar/catalogue/index.js';
import type { PropertyMetadata } from '../../metadata/types.js';
import type { Condition } from '../../store/types.js';
import type { FilterKindModule } from './kind.js';
import { dateBound } from './schemas.js';
import { asObject, typedValue, type Ctx } from './values.js';

/** The store comparison of each date operator. */
const DATE_OPS = { after: 'gte', before: 'lte', strictly_after: 'gt', strictly_before: 'lt' } as const satisfies Record<
  DateOperator,
  string
>;

const DATE_TEXT: Record<DateOperator, string> = {
  before: 'on or before the date',
  strictly_before: 'strictly before the date',
  after: 'on or after the date',
  strictly_after: 'strictly after the date',
};
const NULL_TEXT: Record<string, string> = {
  exclude_null: 'Items without a date never match.',
  include_null_before: 'Items without a date count as before every date.',
  include_null_after: 'Items without a date count as after every date.',
  include_null_before_and_after: 'Items without a date always match.',
};

function dateConditions(ctx: Ctx, prop: PropertyMetadata, strategy: string, raw: unknown): Condition[] {
  const bounds = asObject(raw);
  if (!bounds) return [];
  const out: Condition[] = [];
  for (const [op, value] of Object.entries(bounds)) {
    if (!(op in DATE_OPS)) continue;
    const typed = typedValue(ctx, { ...prop, type: prop.type === 'date' ? 'date' : 'datetime' }, value);
    if (typed === undefined) continue;
    const cond: Condition = { op: DATE_OPS[op as keyof typeof DATE_OPS], field: prop.name, value: typed };
    const before = op === 'before' || op === 'strictly_before';
    // Null strategies: where null dates stand relative to every bound.
    const nullIncluded =
      strategy === 'include_null_before_and_after' ||
      (strategy === 'include_null_before' && before) ||
      (strategy === 'include_null_after' && !before);
    out.push(nullIncluded ? { op: 'or', conditions: [cond, { op: 'exists', field: prop.name, exists: false }] } : cond);
  }
  return out;
}

const nullText = (setting: string | undefined): string => NULL_TEXT[setting ?? 'exclude_null'] ?? '';

export const date: FilterKindModule = {
  variables: (_settings, property) => DATE_OPERATORS.map((op) => `${property}[${op}]`),
  conditions: (ctx, prop, setting, criteria) =>
    dateConditions(ctx, prop, setting ?? 'exclude_null', criteria[prop.name]),
  documentedVariables: (_settings, p, setting) =>
    DATE_OPERATORS.map((op) => ({
      name: `${p.name}[${op}]`,
      schema: dateBound(p),
      description: `Items whose ${p.name} is ${DATE_TEXT[op]}. ${nullText(setting)}`.trim(),
    })),
  namedValue: (p, setting) => ({
    schema: { type: 'object', properties: Object.fromEntries(DATE_OPERATORS.map((op) => [op, dateBound(p)])) },
    text: `Bounds on ${p.name}: ${DATE_OPERATORS.map((op) => `\`${op}\``).join(', ')}. ${nullText(setting)}`.trim(),
    object: true,
  }),
  bodyEntry: (_settings, p, setting) => ({
    key: p.name,
    members: DATE_OPERATORS.map((op) => ({
      name: op,
      schema: dateBound(p),
      description: `Items whose ${p.name} is ${DATE_TEXT[op]}. ${nullText(setting)}`.trim(),
    })),
  }),
};
