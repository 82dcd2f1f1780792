/** The `exists` filter: `?exists[publishedAt]=true|false|1|0`, the property is (not) null. */
import type { PropertyMetadata } from '../../metadata/types.js';
import type { FilterKindModule } from './kind.js';
import { bool } from './schemas.js';
import { asObject, boolOf } from './values.js';

const text = (p: PropertyMetadata): string =>
  `true: items whose ${p.name} is set; false: items whose ${p.name} is null or absent.`;

export const exists: FilterKindModule = {
  variables: (settings, property) => [`${settings.existsParameter}[${property}]`],
  conditions: (ctx, prop, _setting, criteria) => {
    const b = boolOf(asObject(criteria[ctx.api.settings.existsParameter])?.[prop.name]);
    return b === undefined ? [] : [{ op: 'exists', field: prop.name, exists: b }];
  },
  namedCriteria: (settings, property, value) => ({ [settings.existsParameter]: { [property]: value } }),
  documentedVariables: (settings, p) => [
    { name: `${settings.existsParameter}[${p.name}]`, schema: bool(), description: text(p) },
  ],
  namedValue: (p) => ({ schema: bool(), text: text(p), object: false }),
  bodyEntry: (settings, p) => ({
    key: settings.existsParameter,
    members: [{ name: p.name, schema: bool(), description: text(p) }],
  }),
};
