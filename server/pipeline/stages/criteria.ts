import { HttpError, badRequest } from '../../protocol/errors.js';
import { parseQuery } from '../../protocol/query.js';
import { parseJsonBody } from '../representation/json-body.js';
import { bodyTooLarge, type Answers } from '../answers.js';
import type { OperationMetadata } from '../../metadata/types.js';
import { isItem, type OperationState } from '../state.js';

const ACCEPT_QUERY = 'application/x-www-form-urlencoded, application/json';

/** Whether the stage has anything to do: only a QUERY operation takes its criteria from the body. */
/** A QUERY's body that is no JSON object, or of a type that is neither JSON nor a form. */
export const criteriaAnswers: Answers = (_op, api) => [
  { status: 400, description: 'The body is not valid JSON or does not decode to a JSON object.' },
  bodyTooLarge(api),
  {
    status: 415,
    description: 'No Content-Type, or one that is neither JSON nor a form.',
    headers: {
      'Accept-Query': {
        description: 'The media types a QUERY body may have.',
        schema: { type: 'string', const: 'application/x-www-form-urlencoded, application/json' },
      },
    },
  },
];

export const readsCriteria = (op: OperationMetadata): boolean => op.method === 'QUERY';

/**
 * Stage "criteria" of a QUERY request (docs/behaviour.md, "Filters and QUERY"): the body holds the
 * filter criteria, as JSON or as a form. Content-Type is required even for an empty body (our
 * deliberate difference); any other type is a 415 with `Accept-Query`.
 */
export async function queryCriteria(state: OperationState): Promise<void> {
  if (state.operation.method !== 'QUERY') return;
  const type = state.contentType?.split(';')[0].trim().toLowerCase();
  const isJson = type !== undefined && /[/+]json$/.test(type);
  if (!isJson && type !== 'application/x-www-form-urlencoded') {
    throw new HttpError(
      415,
      `The content type "${type ?? 'none'}" is not supported for the HTTP QUERY method. Use "application/x-www-form-urlencoded" or a JSON-based media type.`,
      {
        headers: { 'Accept-Query': ACCEPT_QUERY },
      },
    );
  }
  const raw = await state.readBody();
  if (raw.trim() === '') {
    state.criteria = {};
    return;
  }
  if (!isJson) {
    state.criteria = parseQuery(raw);
    return;
  }
  const body = parseJsonBody(raw, 'The QUERY request body is not valid JSON.');
  if (!isItem(body)) throw badRequest('The QUERY request body must decode to a JSON object.');
  state.request.body = body;
  state.criteria = body;
}
