/**
 * The Hydra `search` IriTemplate of a collection (docs/behaviour.md, "Filters and QUERY"): one variable per
 * query parameter the operation's filters and parameters understand, as API Platform's
 * filter descriptions name them (`title`, `title[]`, `price[gt]`, `order[title]`, …).
 */
import { optionValue, perOperation } from '../../metadata/options.js';
import type { HydraKeys } from '../../protocol/hydra.js';
import type { ApiMetadata, FilterMetadata, OperationMetadata } from '../../metadata/types.js';
import { filterKind } from './index.js';
import { filterTarget } from './paths.js';

/** The query parameter names of one filter on one property (its kind's module says which). */
export const filterVariables = (api: ApiMetadata, filter: FilterMetadata, property: string): string[] =>
  filterKind(filter.kind).variables(api.settings, property);

type Variable = { variable: string; property: string; required: boolean };
const variablesOf = perOperation((op, api: ApiMetadata) => computeVariables(api, op));

/** Variables of an operation: its filters' and its named parameters', each once (computed once per operation). */
export const operationVariables = (api: ApiMetadata, op: OperationMetadata): Variable[] => variablesOf(op, api);

function computeVariables(api: ApiMetadata, op: OperationMetadata): Variable[] {
  const out = new Map<string, Variable>();
  for (const name of optionValue(op, 'filters') ?? []) {
    const filter = api.filters.get(name);
    if (!filter) continue;
    for (const { name: property } of filter.properties) {
      if (!filterTarget(api, op.resource, property)) continue;
      for (const variable of filterVariables(api, filter, property))
        if (!out.has(variable)) out.set(variable, { variable, property, required: false });
    }
  }
  const parameters = optionValue(op, 'parameters') ?? {};
  for (const [variable, spec] of Object.entries(parameters)) {
    if (!out.has(variable))
      out.set(variable, { variable, property: spec?.property ?? variable, required: spec?.required === true });
  }
  return [...out.values()];
}

export function searchTemplate(
  api: ApiMetadata,
  op: OperationMetadata,
  path: string,
  keys: HydraKeys,
): Record<string, unknown> | undefined {
  const variables = operationVariables(api, op);
  if (variables.length === 0) return undefined;
  return {
    '@type': keys.iriTemplateType,
    [keys.template]: `${path}{?${variables.map((v) => v.variable).join(',')}}`,
    [keys.variableRepresentation]: 'BasicRepresentation',
    [keys.mapping]: variables.map((v) => ({
      '@type': 'IriTemplateMapping',
      variable: v.variable,
      property: v.property,
      required: v.required,
    })),
  };
}
