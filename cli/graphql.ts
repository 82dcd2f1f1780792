/**
 * `apidsl graphql FILE.api [--out FILE]`: the GraphQL schema of a file in SDL, on stdout or in FILE.
 */
import { writeFileSync } from 'node:fs';
import { printSchema } from 'graphql';
import { graphQlSchema } from '../server/graphql/schema.js';
import { loadApi } from '../server/load-api.js';
import { startFailure } from './start-failure.js';

export async function runGraphql(file: string, opts: { out?: string }): Promise<number> {
  try {
    const text = `${printSchema(graphQlSchema(await loadApi(file)))}\n`;
    if (opts.out === undefined) process.stdout.write(text);
    else writeFileSync(opts.out, text);
    return 0;
  } catch (e) {
    return startFailure({ command: 'graphql', file }, e);
  }
}
