/**
 * The access expressions a diff compares: one row per option. An expression added narrows who may call (breaking
 * for the callers it now refuses), one removed widens it, one changed may do either: a person reviews it.
 */
import { writtenOption } from '../metadata/options.js';
import type { OperationMetadata, PropertyMetadata } from '../metadata/types.js';
import type { OptionName } from '../../grammar/catalogue/index.js';
import { finding, type Finding } from './findings.js';

/** The expression options of an operation (written on it or on its resource); a new one is one more name here. */
export const OPERATION_EXPRESSIONS: readonly OptionName[] = [
  'security',
  'securityPostDenormalize',
  'securityPostValidation',
  'scope',
];

/** The expression options of a property. */
export const PROPERTY_EXPRESSIONS: readonly { option: string; read(p: PropertyMetadata): string | undefined }[] = [
  { option: 'security', read: (p) => p.security?.source },
  { option: 'securityPostDenormalize', read: (p) => p.securityPostDenormalize?.source },
];

/** An expression's text without the spacing that does not change it; an object form (`{ read, write }`) as JSON. */
function normalized(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value.replace(/\s+/g, ' ').trim();
  return JSON.stringify(value);
}

function compared(
  subject: string,
  option: string,
  before: unknown,
  after: unknown,
  routes: readonly string[],
): Finding | undefined {
  const [was, is] = [normalized(before), normalized(after)];
  if (was === is) return undefined;
  if (was === undefined) return finding('security-added', subject, `${option} added: ${is}`, routes);
  if (is === undefined) return finding('security-removed', subject, `${option} removed (was ${was})`, routes);
  return finding('security-changed', subject, `${option} ${was} → ${is}`, routes);
}

export function operationExpressionFindings(
  subject: string,
  before: OperationMetadata,
  after: OperationMetadata,
  routes: readonly string[],
): Finding[] {
  return OPERATION_EXPRESSIONS.flatMap(
    (option) => compared(subject, option, writtenOption(before, option), writtenOption(after, option), routes) ?? [],
  );
}

export function propertyExpressionFindings(
  subject: string,
  before: PropertyMetadata,
  after: PropertyMetadata,
  routes: readonly string[],
): Finding[] {
  return PROPERTY_EXPRESSIONS.flatMap(
    ({ option, read }) => compared(subject, option, read(before), read(after), routes) ?? [],
  );
}
