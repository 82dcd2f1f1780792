/**
 * Security expressions at run time: compiled once at load, evaluated per request by a sandboxed
 * interpreter over the parsed tree (grammar/expression.ts). INTERFACE ONLY for now: the
 * interpreter lands next; until then every evaluation throws, so every guarded request is denied.
 */

/** The authenticated user, as expressions and custom code see it. */
export interface SecurityUser {
  identifier: string;
  /** The roles the credentials carry (before the role hierarchy). */
  roles: string[];
  /** The JWT payload, or what the authenticator returned. */
  claims: Record<string, unknown>;
}

/** What one evaluation sees. */
export interface SecurityContext {
  user: SecurityUser | null;
  /** The user's roles after the hierarchy. */
  roles: string[];
  object: unknown;
  previous_object: unknown;
  request: { method: string; path: string; query: Record<string, unknown>; headers: Record<string, string> };
  /** The operation's URI variables by name (reserved names win on a clash). */
  uriVariables: Record<string, string>;
  /** `is_granted(attribute, subject)`: roles for ROLE_* attributes, the voters otherwise. */
  isGranted(attribute: unknown, subject: unknown): boolean | Promise<boolean>;
}

export interface CompiledExpression {
  source: string;
  /** True when the expression reads `object` or `previous_object` (it then runs after the read). */
  usesObject: boolean;
  /** The expression's value cast to a boolean as PHP does. Throws on any run-time error: callers deny. */
  evaluate(context: SecurityContext): Promise<boolean>;
}

export function compileExpression(source: string): CompiledExpression {
  return {
    source,
    usesObject: /\b(object|previous_object)\b/.test(source),
    evaluate: () => Promise.reject(new Error('security expressions are not evaluated yet')),
  };
}
