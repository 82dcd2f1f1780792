/**
 * Independent validators of our OpenAPI documents, all working offline from schemas their npm
 * packages ship:
 * - @seriousme/openapi-schema-validator: the official OAS 3.1 and 3.2 JSON Schemas (Ajv inside);
 * - @hyperjump/json-schema (another JSON Schema engine): the OAS 3.1 and 3.2 `schema-base`
 *   schemas, which also check every Schema Object against the OAS dialect;
 * and Ajv 2020 to check live responses against the schemas the document gives them.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type * as OpenApi31 from '@hyperjump/json-schema/openapi-3-1';

type OpenApiSchemas = typeof OpenApi31;

export type Doc = Record<string, unknown>;

export interface Verdict {
  valid: boolean;
  errors: string;
}

export async function seriousme(doc: Doc): Promise<Verdict & { version: string }> {
  const validator = new Validator();
  const res = await validator.validate(structuredClone(doc));
  return { valid: res.valid, errors: JSON.stringify(res.errors ?? []), version: validator.version };
}

export async function hyperjump(doc: Doc): Promise<Verdict> {
  const version = String(doc.openapi);
  let [module, schema]: [OpenApiSchemas | undefined, string] = [undefined, ''];
  if (version.startsWith('3.2.'))
    [module, schema] = [
      await import('@hyperjump/json-schema/openapi-3-2'),
      'https://spec.openapis.org/oas/3.2/schema-base',
    ];
  else if (version.startsWith('3.1.'))
    [module, schema] = [
      await import('@hyperjump/json-schema/openapi-3-1'),
      'https://spec.openapis.org/oas/3.1/schema-base',
    ];
  if (!module) return { valid: false, errors: `no hyperjump schema for OpenAPI ${version}` };
  const output = await module.validate(schema, structuredClone(doc) as any, 'BASIC');
  return { valid: output.valid, errors: output.valid ? '[]' : JSON.stringify(output.errors ?? []) };
}

/** The JSON pointer of a response's schema in a document. */
export const responsePointer = (path: string, method: string, status: number | string, mediaType: string): string =>
  `#/paths/${path.replace(/~/g, '~0').replace(/\//g, '~1')}/${method.toLowerCase()}/responses/${status}/content/${mediaType.replace(/~/g, '~0').replace(/\//g, '~1')}/schema`;

/** Checks instances against schemas of one OpenAPI document (its components resolved). */
export class ResponseChecker {
  private readonly ajv: Ajv2020;

  constructor(doc: Doc) {
    this.ajv = new Ajv2020({ strict: false, validateSchema: false, allErrors: true });
    (addFormats as unknown as (ajv: Ajv2020) => void)(this.ajv);
    this.ajv.addFormat('iri-reference', true);
    this.ajv.addSchema({ ...doc, $id: 'urn:apidsl:openapi' });
  }

  /** Undefined when the instance matches the schema at `pointer` (`#/paths/…`), else the errors. */
  check(pointer: string, instance: unknown): string | undefined {
    const validate = this.ajv.compile({ $ref: `urn:apidsl:openapi${pointer}` });
    return validate(instance) ? undefined : JSON.stringify(validate.errors);
  }
}
