/** The `boolean` filter: `?available=true|false|1|0`, boolean equality. */
import type { FilterKindModule } from './kind.js';
import { bool } from './schemas.js';
import { boolOf } from './values.js';

export const boolean: FilterKindModule = {
  variables: (_settings, property) => [property],
  conditions: (_ctx, prop, _setting, criteria) => {
    const b = boolOf(criteria[prop.name]);
    return b === undefined ? [] : [{ op: 'eq', field: prop.name, value: b }];
  },
  documentedVariables: (_settings, p) => [
    { name: p.name, schema: bool(), description: `Items whose ${p.name} is true or false (also \`1\` and \`0\`).` },
  ],
  namedValue: (p) => ({ schema: bool(), text: `Items whose ${p.name} is true or false.`, object: false }),
  bodyEntry: (_settings, p) => ({ key: p.name, values: [bool()], text: `Items whose ${p.name} is true or false.` }),
};
