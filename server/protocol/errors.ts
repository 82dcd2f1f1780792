/**
 * Errors a request can end in. Every stage throws an HttpError; one middleware turns it into
 * API Platform's error document (Hydra or problem+json, see problem.ts). Anything else thrown
 * is a bug and answers 500.
 */
export interface Violation {
  propertyPath: string;
  message: string;
  /** Symfony constraint code (e.g. NotBlank's), so clients can match on it. */
  code: string;
  /** Why a value was refused, for the user (Symfony's `hint` parameter, e.g. `Item not found for "/authors/9".`). */
  hint?: string;
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly options: {
      headers?: Record<string, string>;
      violations?: Violation[];
      /** The document's title; default API Platform's `An error occurred`. */
      title?: string;
    } = {},
  ) {
    super(detail);
  }
}

export const notFound = (detail = 'Not Found'): HttpError => new HttpError(404, detail);
export const badRequest = (detail: string): HttpError => new HttpError(400, detail);
/** A conditional request whose condition (If-Match, If-None-Match) no longer holds: nothing was written. */
export const preconditionFailed = (detail: string): HttpError => new HttpError(412, detail);
