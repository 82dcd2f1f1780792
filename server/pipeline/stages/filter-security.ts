/**
 * Stage "filterSecurity" of collection operations (docs/behaviour.md, Security: "Filters cannot probe hidden values"). A
 * criterion on a property whose `security` denies this user (a filter of any kind, a named parameter feeding one;
 * a cursor's bounds and order are its field's range and order filters, which `apidsl check` requires) answers 400
 * naming the parameter: the documents leave that property out, and `totalItems`, the members or their order would
 * otherwise give its value away. A rule that errs denies (fail closed). A rule that
 * reads `object` is evaluated with no item, so it allows only what it grants whatever the item.
 *
 * A `parameters` entry's own `security` (API Platform 4's parameter security) is checked first when the request
 * gives the parameter: a denial is the operation's denial, 401 to an anonymous user, 403 to another.
 *
 * Every face (REST, QUERY bodies, GraphQL arguments, MCP tool arguments, index reads) reaches the read through
 * `state.criteria`, checked here once before the read.
 */
import { perOperation, optionValue } from '../../metadata/options.js';
import type { ApiMetadata, OperationMetadata, PropertyMetadata } from '../../metadata/types.js';
import { HttpError } from '../../protocol/errors.js';
import { allows } from '../../security/access.js';
import { compileGuard } from '../../expression/guard.js';
import { filterKind } from '../filters/index.js';
import type { Answers } from '../answers.js';
import { DENIALS, enforce, factsOf, type Guard } from '../guards.js';
import type { OperationState } from '../state.js';

/** Where a criterion on a guarded property stands in the criteria: `['price']`, `['order', 'price']`. */
interface GuardedCriterion {
  path: readonly string[];
  property: PropertyMetadata;
}

/** Whether the stage has anything to do: a collection with a property rule or a parameter's `security`. */
export const checksFilterSecurity = (op: OperationMetadata): boolean =>
  op.isCollection &&
  (op.resource.properties.some((p) => p.security) ||
    Object.values(optionValue(op, 'parameters') ?? {}).some((spec) => typeof spec?.security === 'string'));

/** The segments of a query parameter's name up to the property's: `order[price]` → order, price; `price[gt]` → price. */
function pathTo(variable: string, property: string): string[] {
  const segments = variable.split(/[[\]]+/).filter((s) => s !== '');
  const at = segments.indexOf(property);
  return at < 0 ? segments : segments.slice(0, at + 1);
}

/** The operation's criteria on guarded properties and its parameters' own guards, read once. */
const criteriaGuards = perOperation((op: OperationMetadata, api: ApiMetadata) => {
  const guardedProperty = (name: string): PropertyMetadata | undefined =>
    op.resource.properties.find((p) => p.name === name && p.security);
  const criteria: GuardedCriterion[] = [];
  const add = (path: string[], property: PropertyMetadata): void => {
    if (!criteria.some((c) => c.path.join('\0') === path.join('\0'))) criteria.push({ path, property });
  };
  for (const name of optionValue(op, 'filters') ?? []) {
    const filter = api.filters.get(name);
    for (const { name: propName } of filter?.properties ?? []) {
      const property = guardedProperty(propName);
      if (!property || !filter) continue;
      for (const variable of filterKind(filter.kind).variables(api.settings, propName))
        add(pathTo(variable, propName), property);
    }
  }
  const parameters: { name: string; guard: Guard }[] = [];
  for (const [name, spec] of Object.entries(optionValue(op, 'parameters') ?? {})) {
    const property = guardedProperty(spec?.property ?? name);
    if (property) add([name], property);
    if (typeof spec?.security === 'string')
      parameters.push({
        name,
        guard: { expression: compileGuard(spec.security, op.uriVariables), message: spec.securityMessage },
      });
  }
  return { criteria, parameters };
});

/** A criterion on a property the user may not read; a parameter's own `security` refusing the request. */
export const filterSecurityAnswers: Answers = (op, api) => {
  const { criteria, parameters } = criteriaGuards(op, api);
  return [
    ...(criteria.length
      ? [{ status: 400, description: 'A filter or order parameter reads a property the user may not see.' }]
      : []),
    ...(parameters.length ? DENIALS : []),
  ];
};

/** The parameter as the client wrote it (`price[between]`), when the criteria hold something at `path`. */
function givenParameter(criteria: Record<string, unknown>, path: readonly string[]): string | undefined {
  let value: unknown = criteria;
  for (const key of path) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  if (value === undefined) return undefined;
  const [first, ...rest] = path;
  const operator =
    value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value).slice(0, 1) : [];
  return first + [...rest, ...operator].map((s) => `[${s}]`).join('');
}

export async function filterSecurity(state: OperationState): Promise<void> {
  if (!checksFilterSecurity(state.operation)) return;
  const { criteria, parameters } = criteriaGuards(state.operation, state.api);
  for (const { name, guard } of parameters)
    if (state.criteria[name] !== undefined) await enforce(state, guard, null, null);
  const facts = factsOf(state);
  const readable = new Map<PropertyMetadata, Promise<boolean>>();
  for (const { path, property } of criteria) {
    const given = givenParameter(state.criteria, path);
    if (given === undefined) continue;
    let allowed = readable.get(property);
    if (!allowed) readable.set(property, (allowed = allows(property.security!, facts, null, null)));
    if (!(await allowed))
      throw new HttpError(400, `Parameter "${given}" is not allowed: it reads a property you may not see.`);
  }
}
