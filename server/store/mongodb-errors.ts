// Errors of the MongoDB store that the CLI reports in one line, without loading the driver to recognise them.

/** The connection string cannot be used (malformed, or asks for unacknowledged writes). */
export class MongoConfigError extends Error {
  override readonly name = 'MongoConfigError';
}

/** The connection string without its credentials, for messages and logs. */
export function redactUri(uri: string): string {
  return uri.replace(/^(mongodb(?:\+srv)?:\/\/)[^@/?]*@/i, '$1***@');
}
