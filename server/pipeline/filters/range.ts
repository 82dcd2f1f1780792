/**
 * The `range` filter: `?price[gt]=10`, `[gte]`, `[lt]`, `[lte]`, `[between]=10..20`, bounds combined
 * with AND, on numbers and dates. A malformed bound is ignored.
 */
import { RANGE_OPERATORS, type RangeOperator } from '../../../grammar/catalogue/index.js';
import type { PropertyMetadata } from '../../metadata/types.js';
import type { Condition } from '../../store/types.js';
import type { JsonSchema } from '../validation/schema.js';
import type { FilterKindModule } from './kind.js';
import { dateBound } from './schemas.js';
import { asObject, scalar, typedValue, type Ctx } from './values.js';

const RANGE_BOUNDS = new Set<string>(RANGE_OPERATORS.filter((op) => op !== 'between'));

const RANGE_TEXT: Record<RangeOperator, string> = {
  between: 'between two values, both included: `low..high`',
  gt: 'greater than the value',
  gte: 'greater than or equal to the value',
  lt: 'less than the value',
  lte: 'less than or equal to the value',
};

function rangeConditions(ctx: Ctx, prop: PropertyMetadata, raw: unknown): Condition[] {
  const bounds = asObject(raw);
  if (!bounds) return [];
  const out: Condition[] = [];
  for (const [op, value] of Object.entries(bounds)) {
    if (op === 'between') {
      const parts = scalar(value)?.split('..');
      if (!parts || parts.length !== 2) continue;
      const [lo, hi] = parts.map((p) => typedValue(ctx, prop, p));
      if (lo === undefined || hi === undefined) continue;
      out.push({ op: 'gte', field: prop.name, value: lo }, { op: 'lte', field: prop.name, value: hi });
    } else if (RANGE_BOUNDS.has(op)) {
      const typed = typedValue(ctx, prop, value);
      if (typed !== undefined && (typeof typed === 'number' || prop.type === 'datetime' || prop.type === 'date')) {
        out.push({ op: op as Exclude<RangeOperator, 'between'>, field: prop.name, value: typed });
      }
    }
  }
  return out;
}

function rangeBound(p: PropertyMetadata, op: string): JsonSchema {
  if (op === 'between') return { type: 'string', pattern: '^.+\\.\\..+$', examples: ['10..20'] };
  if (p.type === 'datetime' || p.type === 'date') return dateBound(p);
  return p.type === 'int' ? { type: 'integer' } : { type: 'number' };
}

export const range: FilterKindModule = {
  variables: (_settings, property) => RANGE_OPERATORS.map((op) => `${property}[${op}]`),
  conditions: (ctx, prop, _setting, criteria) => rangeConditions(ctx, prop, criteria[prop.name]),
  documentedVariables: (_settings, p) =>
    RANGE_OPERATORS.map((op) => ({
      name: `${p.name}[${op}]`,
      schema: rangeBound(p, op),
      description: `Items whose ${p.name} is ${RANGE_TEXT[op]}. A malformed value is ignored.`,
    })),
  namedValue: (p) => ({
    schema: { type: 'object', properties: Object.fromEntries(RANGE_OPERATORS.map((op) => [op, rangeBound(p, op)])) },
    text: `Bounds on ${p.name}: ${RANGE_OPERATORS.map((op) => `\`${op}\` (${RANGE_TEXT[op]})`).join(', ')}.`,
    object: true,
  }),
  bodyEntry: (_settings, p) => ({
    key: p.name,
    members: RANGE_OPERATORS.map((op) => ({
      name: op,
      schema: rangeBound(p, op),
      description: `Items whose ${p.name} is ${RANGE_TEXT[op]}.`,
    })),
  }),
};
