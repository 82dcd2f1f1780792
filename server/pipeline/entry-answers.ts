/**
 * What every operation can answer before its stages run, from the edge of the request rather than from a stage:
 * a Host header that is refused and credentials that cannot be verified (http/every-response.ts and
 * http/authentication.ts, on every route), an `Accept` that none of the formats serves, and a JSON:API client's
 * malformed query (execute.ts `operationState`). The OpenAPI responses
 * list them with the entry's other answers (openapi/responses.ts).
 */
import { authenticates } from '../security/authenticate.js';
import type { Answers } from './answers.js';
import { JSONAPI_FORMAT } from './representation/jsonapi.js';

/** A Host header that is no `host[:port]`, or matches none of `trusted_hosts` (protocol/host.ts). */
export const hostAnswers: Answers = (_op, api) => [
  {
    status: 400,
    description: `The Host header is not a valid host[:port]${api.settings.trustedHosts.length > 0 ? ' or matches none of the trusted_hosts patterns' : ''}.`,
  },
];

/** Invalid credentials: refused on every route, whatever the operation's rules (security/authenticate.ts). */
export const credentialAnswers: Answers = (_op, api) => {
  const { jwt, authenticator } = api.security;
  if (!authenticates(api.security)) return [];
  const causes = [
    jwt && 'a malformed, expired or badly signed token',
    authenticator && 'credentials the authenticator rejects',
  ];
  return [
    {
      status: 401,
      description: `The credentials sent cannot be verified (${causes.filter(Boolean).join(', or ')}).`,
      headers: {
        'WWW-Authenticate': { description: '`Bearer error="invalid_token"`.', schema: { type: 'string' } },
      },
    },
  ];
};

/** The output format negotiated from `Accept` (protocol/negotiation.ts); JSON:API's query read with it. */
export const negotiationAnswers: Answers = (_op, api) => {
  const formats = api.settings.formats;
  const types = Object.values(formats).flat();
  return [
    { status: 406, description: `The Accept header names none of the media types served: ${types.join(', ')}.` },
    ...(formats[JSONAPI_FORMAT]
      ? [{ status: 400, description: 'To a JSON:API client: a malformed fields, sort or include parameter.' }]
      : []),
  ];
};
