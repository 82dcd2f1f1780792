/**
 * The responses of an operation in the OpenAPI document: its success (status, headers, the body per output
 * format), then every status the pipeline can answer it instead, as the entry (rate limits, conditional writes)
 * and the stages it runs declare them (`stagesOf`, pipeline/answers.ts): a stage that starts answering a new
 * status documents it. Several causes of one status are one response, their descriptions joined.
 */
import { dispatchesOnly, successStatus } from '../metadata/operation-facts.js';
import { optionValue, writtenOption } from '../metadata/options.js';
import type { ApiMetadata, OperationMetadata } from '../metadata/types.js';
import { hubUrl, resourcePublishes } from '../realtime/index.js';
import type { Answer, AnswerHeader, Answers } from '../pipeline/answers.js';
import { stagesOf } from '../pipeline/chain.js';
import { credentialAnswers, hostAnswers, negotiationAnswers } from '../pipeline/entry-answers.js';
import { preconditionAnswers } from '../pipeline/preconditions.js';
import { rateLimitAnswers } from '../pipeline/rate-limit.js';
import { JSONAPI_FORMAT, JSONAPI_MEDIA_TYPE } from '../pipeline/representation/jsonapi.js';
import type { JsonSchema } from '../pipeline/validation/schema.js';
import { collectionIriExample, iri, pageIriExample, responseIriExample } from './examples.js';
import { jsonApiDocument } from './jsonapi-schemas.js';
import type { SchemaRegistry } from './schemas.js';

export type ResponseObject = Record<string, unknown>;

/** What the entry can answer before any stage runs (the HTTP edge: pipeline/entry-answers.ts; pipeline/execute.ts). */
const ENTRY_ANSWERS: readonly Answers[] = [
  hostAnswers,
  credentialAnswers,
  rateLimitAnswers,
  negotiationAnswers,
  preconditionAnswers,
];

/** Every answer an operation can get besides its success: the entry's, then each stage's in order. */
export function answersOf(op: OperationMetadata, api: ApiMetadata): Answer[] {
  const declared = [...ENTRY_ANSWERS, ...stagesOf(op, api.settings).flatMap(({ answers }) => answers ?? [])];
  return declared.flatMap((answers) => answers(op, api));
}

/** One answer per status: the causes joined (each once), the headers merged. */
function byStatus(answers: readonly Answer[]): Map<number, Answer> {
  const merged = new Map<number, Answer>();
  for (const answer of answers) {
    const seen = merged.get(answer.status);
    if (!seen) merged.set(answer.status, { ...answer });
    else {
      if (!seen.description.includes(answer.description))
        seen.description = `${seen.description} ${answer.description}`;
      if (answer.headers) seen.headers = { ...seen.headers, ...answer.headers };
      if (answer.violations) seen.violations = true;
    }
  }
  return merged;
}

export class OperationResponses {
  constructor(
    private readonly api: ApiMetadata,
    private readonly registry: SchemaRegistry,
  ) {}

  responses(op: OperationMetadata): Record<string, ResponseObject> {
    const answers = answersOf(op, this.api);
    const only = answers.filter((a) => a.only);
    const responses: Record<string, ResponseObject> = only.length ? {} : this.success(op);
    for (const [status, answer] of byStatus(only.length ? only : answers)) responses[status] = this.answer(answer);
    return responses;
  }

  private answer(answer: Answer): ResponseObject {
    const r = this.registry;
    const schema = answer.violations
      ? { anyOf: [r.constraintViolationJsonLd(), r.constraintViolation()] }
      : { anyOf: [r.errorJsonLd(), r.error()] };
    return {
      description: answer.description,
      ...(answer.headers ? { headers: answer.headers } : {}),
      content: {
        // Always served as problem+json: the Hydra document unless the client prefers plain JSON.
        'application/problem+json': { schema },
        ...this.jsonApiErrors(),
      },
    };
  }

  /** With the JSON:API format, errors a client asking for it gets as a JSON:API error document. */
  private jsonApiErrors(): Record<string, unknown> {
    return this.api.settings.formats[JSONAPI_FORMAT]
      ? { [JSONAPI_MEDIA_TYPE]: { schema: this.registry.errorJsonApi() } }
      : {};
  }

  /** The success: its status (and a creating PUT's 201), with the Location and Mercure Link headers. */
  private success(op: OperationMetadata): Record<string, ResponseObject> {
    const name = op.shortName;
    const status = successStatus(op, { dispatched: dispatchesOnly(op) });
    const hasBody =
      status !== 204 &&
      optionValue(op, 'output') !== false &&
      optionValue(op, this.api.settings, 'serialize') !== false;
    const hubLink = this.hubLink(op);
    const success = (description: string, headers?: Record<string, AnswerHeader>): ResponseObject => ({
      description: status === 202 ? `${name} accepted: dispatched to the message bus.` : description,
      ...(headers || hubLink ? { headers: { ...headers, ...hubLink } } : {}),
      ...(hasBody ? { content: this.outputContent(op) } : {}),
    });
    const location = {
      Location: { description: 'The IRI of the item.', schema: iri(responseIriExample(op.resource)) },
    };
    const responses: Record<string, ResponseObject> = {};
    if (op.isCollection && op.method !== 'POST') responses[status] = success(`${name} collection.`);
    else if (op.method === 'POST')
      responses[status] = success(`${name} resource created.`, status === 201 ? location : undefined);
    else if (op.method === 'PUT' || op.method === 'PATCH') responses[status] = success(`${name} resource updated.`);
    else if (op.method === 'DELETE')
      responses[status] = { description: `${name} resource deleted.`, ...(hubLink ? { headers: hubLink } : {}) };
    else responses[status] = success(`${name} resource.`);
    if (op.method === 'PUT' && optionValue(op, 'allowCreate') === true && writtenOption(op, 'status') === undefined)
      responses['201'] = success(`${name} resource created (it did not exist).`, location);
    return responses;
  }

  /** The Mercure hub's Link header of a resource that publishes its changes. */
  private hubLink(op: OperationMetadata): Record<string, AnswerHeader> | undefined {
    const hub = resourcePublishes(op.resource, this.api.settings) ? hubUrl(this.api.settings, '') : undefined;
    if (!hub) return undefined;
    return {
      Link: {
        description: `Includes <${hub}>; rel="mercure": the Mercure hub publishing the changes of ${op.shortName} items.`,
        schema: { type: 'string' },
      },
    };
  }

  /** The body of a successful answer, per output format (a bulk POST: the item, or the collection a batch creates). */
  outputContent(op: OperationMetadata): Record<string, { schema: JsonSchema }> {
    const r = this.registry;
    const content: Record<string, { schema: JsonSchema }> = {};
    for (const [format, types] of Object.entries(this.api.settings.formats)) {
      const jsonld = format === 'jsonld';
      const collection = (): JsonSchema => (jsonld ? r.collectionJsonLd(op) : { type: 'array', items: r.output(op) });
      const item = (): JsonSchema => (jsonld ? r.outputJsonLd(op) : r.output(op));
      let schema: JsonSchema;
      if (format === JSONAPI_FORMAT) schema = jsonApiDocument(r.outputJsonApi(op), this.pageIris(op));
      else if (op.isCollection) schema = collection();
      else schema = optionValue(op, 'bulk') === true ? { oneOf: [item(), collection()] } : item();
      for (const type of types) content[type] = { schema };
    }
    return content;
  }

  /** A collection operation's example page IRIs, by page number (`/books?page=2`). */
  private pageIris(op: OperationMetadata): ((page: number) => string) | undefined {
    if (!op.isCollection) return undefined;
    const collection = collectionIriExample(op);
    return (page) => pageIriExample(collection, this.api.settings.pageParameter, page);
  }
}
