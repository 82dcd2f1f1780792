/**
 * A TypeScript type from one of the model's JSON Schemas of query criteria (server/openapi/parameters.ts builds
 * them from the filter kinds): the few keywords those schemas use (`type`, `enum`, `const`, `anyOf`, `items`,
 * `properties`, `required`), nothing else. An object's properties are optional unless `required` names them, and
 * it takes no other key, so that an undeclared filter is a compile error.
 */
import type { JsonSchema } from '../pipeline/validation/schema.js';
import { doc, key } from './item-types.js';

const PRIMITIVES: Record<string, string> = {
  string: 'string',
  integer: 'number',
  number: 'number',
  boolean: 'boolean',
  null: 'null',
};

export function schemaType(schema: JsonSchema, indent = ''): string {
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf)) {
    const alternatives = (schema.anyOf ?? schema.oneOf) as JsonSchema[];
    return [...new Set(alternatives.map((s) => wrapped(schemaType(s, indent))))].join(' | ');
  }
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string | undefined];
  return types.map((type) => typeOf(type, schema, indent)).join(' | ');
}

const wrapped = (type: string): string => (type.includes(' | ') && !type.startsWith('{') ? `(${type})` : type);

function typeOf(type: string | undefined, schema: JsonSchema, indent: string): string {
  if (type === 'array') return `${wrapped(schemaType((schema.items ?? {}) as JsonSchema, indent))}[]`;
  if (type === 'object' || (type === undefined && schema.properties)) return objectType(schema, indent);
  return (type && PRIMITIVES[type]) ?? 'unknown';
}

/** `{ a?: T; … }` over the schema's properties; with none, an object that takes no key. */
export function objectType(schema: JsonSchema, indent = ''): string {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const inner = `${indent}  `;
  const lines = Object.entries(properties).map(
    ([name, s]) =>
      `${doc(s.description as string | undefined, inner)}${inner}${key(name)}${required.has(name) ? '' : '?'}: ${schemaType(s, inner)};`,
  );
  return lines.length ? `{\n${lines.join('\n')}\n${indent}}` : 'Record<string, never>';
}
