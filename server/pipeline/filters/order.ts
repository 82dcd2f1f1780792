/**
 * The `order` filter: `?order[title]=desc&order[id]=asc`, a sort; the order of the keys sets the
 * priority, and the property's direction applies to an empty value.
 */
import type { PropertyMetadata } from '../../metadata/types.js';
import type { Sort } from '../../store/types.js';
import type { JsonSchema } from '../validation/schema.js';
import type { FilterKindModule } from './kind.js';
import { scalar } from './values.js';

/** One filter's order clause on one property, or undefined when the value is not a direction. */
function orderOf(prop: string, setting: string | undefined, raw: unknown): Sort[number] | undefined {
  const dir = scalar(raw)?.trim().toLowerCase();
  if (dir === 'asc' || dir === 'desc') return { field: prop, direction: dir };
  // The configured default applies to an empty value only; an invalid direction is ignored.
  const fallback = setting?.toLowerCase();
  return dir === '' && (fallback === 'asc' || fallback === 'desc') ? { field: prop, direction: fallback } : undefined;
}

const direction = (): JsonSchema => ({ type: 'string', enum: ['asc', 'desc'] });

function orderText(p: PropertyMetadata, setting: string | undefined): string {
  const fallback =
    setting && ['asc', 'desc'].includes(setting.toLowerCase())
      ? ` Any other value sorts ${setting.toLowerCase()}.`
      : '';
  return `Sorts by ${p.name}: \`asc\` or \`desc\`.${fallback} The order of the sort keys sets their priority.`;
}

export const order: FilterKindModule = {
  variables: (settings, property) => [`${settings.orderParameter}[${property}]`],
  conditions: () => [],
  orderClause: orderOf,
  documentedVariables: (settings, p, setting) => [
    { name: `${settings.orderParameter}[${p.name}]`, schema: direction(), description: orderText(p, setting) },
  ],
  namedValue: (p, setting) => ({ schema: direction(), text: orderText(p, setting), object: false }),
  bodyEntry: (settings, p, setting) => ({
    key: settings.orderParameter,
    members: [{ name: p.name, schema: direction(), description: orderText(p, setting) }],
  }),
};
