/**
 * What a filter kind is (the catalogue's `search`, `range`, `date`, `order`, `exists`, `boolean`): the
 * query parameters it reads, the store conditions or sort clause it makes of them, and how the OpenAPI
 * document describes them. One module per kind implements it (search.ts, range.ts, …); index.ts
 * registers them in a table typed by the catalogue's kinds, so a new kind is one more file.
 */
import type { PropertyMetadata, Settings } from '../../metadata/types.js';
import type { QueryParams } from '../../protocol/query.js';
import type { Condition, Sort } from '../../store/types.js';
import type { JsonSchema } from '../validation/schema.js';
import type { Ctx } from './values.js';

/** One query parameter of a filter on a property, as the OpenAPI document lists it. */
export interface DocumentedVariable {
  name: string;
  schema: JsonSchema;
  description: string;
  /** A repeatable parameter (`title[]`): documented with `style: form, explode: true`. */
  array?: boolean;
}

/** The value a named parameter takes: the kind's syntax without the property name around it. */
export interface NamedValue {
  schema: JsonSchema;
  text: string;
  /** An object (`{gt: 1}`): documented as a deep object. */
  object: boolean;
}

/** A QUERY body's share of one filter on one property: plain values under `key`, or members of an object there. */
export type BodyEntry =
  | { key: string; values: JsonSchema[]; text: string }
  | { key: string; members: { name: string; schema: JsonSchema; description: string }[] };

export interface FilterKindModule {
  /** The query parameters read for one property (the Hydra search template's variables; strict parameter checking). */
  variables(settings: Settings, property: string): string[];
  /** The store conditions of the criteria (URL shape) on one property; none for a kind that sorts. */
  conditions(ctx: Ctx, prop: PropertyMetadata, setting: string | undefined, criteria: QueryParams): Condition[];
  /** A kind that sorts: the clause for the client's value, or undefined when the value is not a direction. */
  orderClause?(property: string, setting: string | undefined, raw: unknown): Sort[number] | undefined;
  /** Where a named parameter's value stands in the kind's own syntax (default: under the property's name). */
  namedCriteria?(settings: Settings, property: string, value: unknown): QueryParams;
  /** OpenAPI: one parameter per variable, in the order of `variables`. */
  documentedVariables(settings: Settings, p: PropertyMetadata, setting: string | undefined): DocumentedVariable[];
  /** OpenAPI: the value of a named parameter feeding this kind. */
  namedValue(p: PropertyMetadata, setting: string | undefined): NamedValue;
  /** OpenAPI: the kind's entry in a QUERY request body. */
  bodyEntry(settings: Settings, p: PropertyMetadata, setting: string | undefined): BodyEntry;
}
