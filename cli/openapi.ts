/**
 * `apidsl openapi FILE.api [--spec-version 3.1|3.2] [--out FILE]`: the OpenAPI document of a
 * file, JSON on stdout or in FILE (YAML when FILE ends in .yaml or .yml).
 */
import { writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { DEFAULT_SPEC_VERSION, isSpecVersion, openApiDocument } from '../server/openapi/index.js';
import { loadApi } from '../server/load-api.js';
import { startFailure } from './start-failure.js';

export interface OpenapiOptions {
  specVersion?: string;
  out?: string;
}

export async function runOpenapi(file: string, opts: OpenapiOptions): Promise<number> {
  const version = opts.specVersion ?? DEFAULT_SPEC_VERSION;
  if (!isSpecVersion(version)) {
    process.stderr.write(`apidsl openapi: unsupported --spec-version "${version}": use 3.1 or 3.2\n`);
    return 2;
  }
  try {
    const doc = openApiDocument(await loadApi(file), { specVersion: version });
    const yaml = opts.out !== undefined && /\.ya?ml$/i.test(opts.out);
    const text = yaml
      ? stringify(doc, { aliasDuplicateObjects: false, lineWidth: 0 })
      : `${JSON.stringify(doc, null, 2)}\n`;
    if (opts.out === undefined) process.stdout.write(text);
    else writeFileSync(opts.out, text);
    return 0;
  } catch (e) {
    return startFailure({ command: 'openapi', file }, e);
  }
}
