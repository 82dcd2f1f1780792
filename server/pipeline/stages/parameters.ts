/**
 * Stage "parameters" of collection operations (docs/behaviour.md, "Filters and QUERY"): with
 * `strictQueryParameterValidation`, a criterion no filter, parameter or pagination switch of
 * the operation understands is a 400 `Parameter "x" not supported`; a `parameters` entry
 * marked `required` that is missing is a 422, as API Platform's parameter validation answers.
 */
import { HttpError } from '../../protocol/errors.js';
import { optionValue, perOperation } from '../../metadata/options.js';
import type { OperationMetadata } from '../../metadata/types.js';
import { operationVariables } from '../filters/search-template.js';
import type { Answers } from '../answers.js';
import type { OperationState } from '../state.js';
import { validationFailed, violation } from '../validation/violations.js';

/** Top-level criteria keys the operation understands (`price[gt]` → `price`). */
function understood(state: OperationState): Set<string> {
  const { api, operation: op } = state;
  const keys = new Set(operationVariables(api, op).map((v) => v.variable.split('[')[0]));
  // Pagination is read from the URL; on GET it shares the query string with the criteria.
  if (op.method !== 'QUERY') {
    const s = api.settings;
    keys.add(s.pageParameter);
    const opt = (
      name: 'paginationClientEnabled' | 'paginationClientItemsPerPage' | 'paginationClientPartial',
    ): boolean => optionValue(op, api.settings, name) === true;
    if (opt('paginationClientEnabled')) keys.add(s.enabledParameter);
    if (opt('paginationClientItemsPerPage')) keys.add(s.itemsPerPageParameter);
    if (opt('paginationClientPartial')) keys.add(s.partialParameter);
  }
  return keys;
}

/** Whether the stage has anything to do: only collection operations check their parameters. */
export const checksParameters = (op: OperationMetadata): boolean => op.isCollection;

/** An operation's parameter rules, read once: strict validation, and the parameters it requires. */
const parameterRules = perOperation((op, settings) => ({
  strict: optionValue(op, settings, 'strictQueryParameterValidation') === true,
  required: Object.entries(optionValue(op, 'parameters') ?? {})
    .filter(([, spec]) => spec?.required === true)
    .map(([name]) => name),
}));

/** A parameter the operation does not understand (strict validation), a required one missing. */
export const parametersAnswers: Answers = (op, api) => {
  const rules = parameterRules(op, api.settings);
  return [
    ...(rules.strict
      ? [
          {
            status: 400,
            description: 'A query parameter the operation does not understand (strict query parameter validation).',
          },
        ]
      : []),
    ...(rules.required.length
      ? [
          {
            status: 422,
            description: `A required query parameter is missing: ${rules.required.join(', ')}.`,
            violations: true as const,
          },
        ]
      : []),
  ];
};

export function checkParameters(state: OperationState): void {
  const op = state.operation;
  if (!op.isCollection) return;
  const rules = parameterRules(op, state.api.settings);
  if (rules.strict) {
    const keys = understood(state);
    const unknown = Object.keys(state.criteria).find((k) => !keys.has(k));
    if (unknown !== undefined) throw new HttpError(400, `Parameter "${unknown}" not supported`);
  }
  const missing = rules.required
    .filter((name) => state.criteria[name] === undefined || state.criteria[name] === '')
    .map((name) => violation(name, 'NotBlank'));
  if (missing.length) throw validationFailed(missing);
}
