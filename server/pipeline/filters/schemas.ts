/** JSON Schemas of criterion values, shared by the filter kinds' OpenAPI descriptions. */
import type { PropertyMetadata } from '../../metadata/types.js';
import type { JsonSchema } from '../validation/schema.js';

/** The schema of one criterion value for a property, as the URL or a JSON body carries it. */
export function valueSchema(p: PropertyMetadata): JsonSchema {
  if (p.relation) return { type: 'string', description: `An IRI of ${p.relation} (or its identifier).` };
  switch (p.type) {
    case 'int':
      return { type: 'integer' };
    case 'number':
      return { type: 'number' };
    case 'bool':
      return { type: 'boolean' };
    case 'datetime':
      return { type: 'string', format: 'date-time' };
    case 'date':
      return { type: 'string', format: 'date' };
    default:
      return { type: 'string' };
  }
}

/** A date bound: a date or date-time (ISO 8601), read in UTC. */
export const dateBound = (p: PropertyMetadata): JsonSchema => ({
  type: 'string',
  description: p.type === 'date' ? 'A date, `YYYY-MM-DD`.' : 'A date or date-time (ISO 8601).',
});
export const bool = (): JsonSchema => ({ type: 'boolean' });
