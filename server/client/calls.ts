/**
 * The calls of a generated client (docs/client.md, "Calls"): per routed operation, the row the runtime runs
 * (`[name, method, path, flags]`) and its TypeScript signature — typed URI variables, the body its
 * denormalization groups take (bulk POSTs also take a list), the criteria its filters and pagination read, what
 * it answers (a page for a collection), and its errors: a union discriminated on every status the operation can
 * answer (the entry's and its stages' `Answers`, as the OpenAPI document lists them), 422 with violations whose
 * `propertyPath` is a key path of the input.
 */
import { answersWithBody, dispatchesOnly, successStatus, takesBody } from '../metadata/operation-facts.js';
import { optionValue } from '../metadata/options.js';
import type { ApiMetadata, OperationMetadata } from '../metadata/types.js';
import { paginationParameters, pathParameters, queryBodySchema } from '../openapi/parameters.js';
import { answersOf } from '../openapi/responses.js';
import { BODY, COLLECTION, COUNTED, PATCH, QUERY, type OperationRow } from './runtime.js';
import { doc, type ItemTypes } from './item-types.js';
import type { ReadShapes } from './read-shapes.js';
import { objectType, schemaType } from './schema-types.js';
import { typeName } from './names.js';

/** Statuses every call may get besides the operation's own: no answer (0) and a server failure (500). */
const ALWAYS = [0, 500];

/** What the operation's body is: a patch, an input, QUERY criteria, or nothing. */
function bodyOf(op: OperationMetadata): 'patch' | 'input' | 'criteria' | undefined {
  if (op.method === 'QUERY') return 'criteria';
  if (!takesBody(op.method) || optionValue(op, 'input') === false || optionValue(op, 'deserialize') === false)
    return undefined;
  return op.method === 'PATCH' ? 'patch' : 'input';
}

export function operationRow(api: ApiMetadata, op: OperationMetadata, name: string): OperationRow {
  const body = bodyOf(op);
  let flags = op.isCollection ? COLLECTION : 0;
  if (body === 'input' || body === 'patch') flags |= BODY;
  if (body === 'patch') flags |= PATCH;
  if (op.isCollection && countedPages(api, op)) flags |= COUNTED;
  if (body !== 'criteria') return [name, op.method, op.path, flags];
  // The server reads a QUERY's pagination from its URL only: the runtime moves these keys there.
  return [name, op.method, op.path, flags | QUERY, paginationParameters(api, op).map((p) => p.name)];
}

/**
 * Whether `iterate()` may walk a plain JSON collection (a bare array: no total, no links) by page number: only
 * where every answer is a page (the page parameter read, not cursors, and pagination not switched off by the
 * client, which would repeat every item).
 */
function countedPages(api: ApiMetadata, op: OperationMetadata): boolean {
  const names = paginationParameters(api, op).map((p) => p.name);
  const s = api.settings;
  return names.includes(s.pageParameter) && !names.includes(s.enabledParameter);
}

/**
 * Whether the operation's collection documents (JSON-LD, JSON:API) hold `totalItems`: always, never, or as the
 * client asks.
 */
function totalItems(api: ApiMetadata, op: OperationMetadata): 'always' | 'never' | 'maybe' {
  if (optionValue(op, api.settings, 'paginationClientPartial') === true) return 'maybe';
  return optionValue(op, api.settings, 'paginationPartial') === true ? 'never' : 'always';
}

export class CallSignatures {
  constructor(
    private readonly api: ApiMetadata,
    private readonly types: ItemTypes,
    /** Declarations the signatures name (the query types), added as they are written. */
    private readonly declarations: string[],
    /** Where the API serves JSON:API: the shapes its reads take `include` and `fields` by. */
    private readonly shapes?: ReadShapes,
  ) {}

  /** The signature lines of one operation's function (two for a bulk POST: one item, or a list). */
  signature(op: OperationMetadata, name: string, namespace: string): string[] {
    const params = this.variables(op);
    const body = bodyOf(op);
    let data = this.data(op);
    let input: string | undefined;
    if (body === 'input') input = this.types.input(op);
    if (body === 'patch') input = this.types.patch(op);
    const errors = (paths: string) => this.errors(op, paths);
    const result = (value: string, paths: string) => `Promise<R.Result<${value}, ${errors(paths)}>>`;
    let opts = 'options?: R.CallOptions';
    // A JSON:API read is generic over its options: `include` and `fields` shape what it answers.
    let generic = '';
    const shape = this.shapes && data !== 'undefined' && ['GET', 'QUERY'].includes(op.method) && this.shapes.of(op);
    if (shape) {
      generic = `<O extends R.Reading<F, ${shape}> = {}>`;
      opts = 'options?: O';
      data = `R.As<F, R.Read<${shape}, O>>`;
    }
    const describe = doc(optionValue(op, 'description') ?? `${op.method} ${op.path}`, '  ');
    if (op.isCollection) {
      const query = this.query(op, typeName(namespace, name, 'Query'));
      const all = [...params, `${body === 'criteria' ? 'criteria' : 'query'}?: ${query}`, opts].join(', ');
      const page = this.page(op, data);
      return [
        `${describe}  ${name}: (${generic}(${all}) => ${result(page, 'never')}) & {\n    iterate${generic}(${all}): AsyncGenerator<${data}>;\n  };`,
      ];
    }
    const paths = input ? `R.Paths<${input}>` : 'never';
    const one = `${describe}  ${name}${generic}(${[...params, ...(input ? [`input: ${input}`] : []), opts].join(', ')}): ${result(data, paths)};`;
    if (body !== 'input' || optionValue(op, 'bulk') !== true) return [one];
    const each = `\`[\${number}]\` | \`[\${number}].\${${paths}}\``;
    const list = [...params, `inputs: ${input}[]`, opts].join(', ');
    return [one, `  ${name}(${list}): ${result(`R.Page<${data}>`, each)};`];
  }

  /** The URI variables: one as a value (`get(id)`), several as an object (`get({ brand, id })`). */
  private variables(op: OperationMetadata): string[] {
    const vars = pathParameters(op).map((p) => ({ name: p.name, type: schemaType(p.schema) }));
    if (vars.length === 0) return [];
    if (vars.length === 1) return [`${vars[0].name}: ${vars[0].type}`];
    return [`variables: { ${vars.map((v) => `${JSON.stringify(v.name)}: ${v.type}`).join('; ')} }`];
  }

  /** What a success holds: the output type, nothing (204, 202, `output: false`). */
  private data(op: OperationMetadata): string {
    const status = successStatus(op, { dispatched: dispatchesOnly(op) });
    if (status === 204 || status === 202 || !answersWithBody(op, this.api.settings)) return 'undefined';
    return `R.As<F, ${this.types.output(op)}>`;
  }

  private page(op: OperationMetadata, data: string): string {
    return `R.Paged<F, ${data}, '${totalItems(this.api, op)}'>`;
  }

  /** The criteria of a collection operation (its filters and named parameters) and its pagination parameters. */
  private query(op: OperationMetadata, name: string): string {
    const { schema } = queryBodySchema(this.api, op);
    const properties = { ...(schema.properties as object) };
    for (const p of paginationParameters(this.api, op))
      (properties as Record<string, unknown>)[p.name] = { ...p.schema, description: p.description };
    this.declarations.push(`export type ${name} = ${objectType({ ...schema, properties })};\n`);
    return name;
  }

  /** The union of the operation's problems, discriminated on `status`. */
  private errors(op: OperationMetadata, paths: string): string {
    const answers = answersOf(op, this.api);
    const violations = new Set(answers.filter((a) => a.violations).map((a) => a.status));
    const plain = [...new Set([...answers.map((a) => a.status), ...ALWAYS])].filter((s) => !violations.has(s));
    const union = [`R.Problem<${plain.sort((a, b) => a - b).join(' | ')}>`];
    if (violations.size) union.push(`R.ValidationProblem<${paths}>`);
    return union.join(' | ');
  }
}
