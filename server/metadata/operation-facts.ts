/**
 * Facts about an operation that the runtime and the documents both state: its success status, whether
 * it reads one item by the identifier in its path, whether a missing item is a 404. One definition
 * each, read by the pipeline (stages/read.ts, http/respond.ts) and by the OpenAPI document alike.
 */
import { optionValue, perOperation, writtenOption } from './options.js';
import type { OperationMetadata } from './types.js';

/** What the request did that changes the default status: dispatched to the bus (202), created by a PUT (201). */
export interface Outcome {
  dispatched?: boolean;
  created?: boolean;
}

/** The status of a successful answer: the `status` option, else by output, outcome and method. */
export function successStatus(op: OperationMetadata, outcome: Outcome): number {
  const fixed = fixedStatus(op);
  if (fixed !== undefined) return fixed;
  if (outcome.dispatched) return 202;
  if (op.method === 'POST') return 201;
  if (op.method === 'DELETE') return 204;
  if (op.method === 'PUT' && outcome.created) return 201;
  return 200;
}

/** The status whatever the outcome, read once: the `status` option, else 204 with `output: false`. */
const fixedStatus = perOperation((op: OperationMetadata, _: void): number | undefined => {
  const configured = writtenOption(op, 'status');
  if (typeof configured === 'number') return configured;
  return optionValue(op, 'output') === false ? 204 : undefined;
});

/** Whether requests of this method carry a body that the operation reads (POST, PUT, PATCH). */
export const takesBody = (method: string): boolean => method === 'POST' || method === 'PUT' || method === 'PATCH';

/** `messenger: true` or `"input"` on a write: the item goes to the message bus and the answer is 202. */
export const dispatchesOnly = (op: OperationMetadata): boolean =>
  ['POST', 'PUT', 'PATCH', 'DELETE'].includes(op.method) &&
  (optionValue(op, 'messenger') === true || optionValue(op, 'messenger') === 'input');

/** Whether the default provider reads one item: an item operation whose path carries the identifier. */
export function readsItem(op: OperationMetadata): boolean {
  const id = op.resource.identifier?.name;
  return !op.isCollection && id !== undefined && op.uriVariables.includes(id);
}

/** Whether an item that is not there answers 404: `throwOnNotFound`, else all but a POST and a PUT with allowCreate. */
export function throwsOnNotFound(op: OperationMetadata): boolean {
  const explicit = writtenOption(op, 'throwOnNotFound');
  if (typeof explicit === 'boolean') return explicit;
  if (op.method === 'POST') return false;
  return !(op.method === 'PUT' && optionValue(op, 'allowCreate') === true);
}

/** Whether an operation's answers have a body: `serialize` and `output` not false. */
export const answersWithBody = perOperation(
  (op, settings): boolean => optionValue(op, settings, 'serialize') !== false && optionValue(op, 'output') !== false,
);
