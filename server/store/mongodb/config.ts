// Errors of the MongoDB store that the CLI reports in one line, and what is read off its connection string,
// without loading the driver.

/** The connection string cannot be used (malformed, or asks for unacknowledged writes). */
export class MongoConfigError extends Error {
  override readonly name = 'MongoConfigError';
}

/** The connection string without its credentials, for messages and logs. */
export function redactUri(uri: string): string {
  return uri.replace(/^(mongodb(?:\+srv)?:\/\/)[^@/?]*@/i, '$1***@');
}

/** The database named by the URI's path, `apidsl` when there is none. */
export function databaseName(uri: string): string {
  const m = /^mongodb(?:\+srv)?:\/\/[^/?]*\/([^?]*)/i.exec(uri);
  const name = m?.[1] ? decodeURIComponent(m[1]) : '';
  return name || 'apidsl';
}
