/**
 * The leak test's REST faces (test/http/scopes-leaks.test.ts), derived from the loaded API: every collection
 * operation (GET and QUERY) in every output format, its pages followed to the end, `totalItems` and `last`; every
 * query parameter the operation declares (filters and orders, as its MCP tool lists them: tools.ts reads the same
 * OpenAPI parameters), with values drawn from any row; every item read (404 byte-identical to an unknown
 * identifier); every PUT, PATCH, DELETE and POST outside the caller's scopes (404, 403: refused).
 */
import { mcpTools } from '../../../server/mcp/tools.js';
import { optionValue } from '../../../server/metadata/options.js';
import type { OperationMetadata } from '../../../server/metadata/types.js';
import { request, type HttpResponse } from '../harness.js';
import type { Sight } from './sight.js';
import type { Row } from './world.js';

/** Query parameters that page rather than filter. */
export const PAGING = new Set(['page', 'itemsPerPage', 'pagination', 'partial']);

/** What the faces share: the server, the caller's view, and a source of choices (fast-check's, per run). */
export interface Face {
  url: string;
  sight: Sight;
  /** A number in [0, n), from the run's random stream. */
  pick(n: number): number;
}

const JSON_LD = 'application/ld+json';

/** The walkable operations: not hidden, not rate-limited (the walk would exhaust the limit), no custom provider. */
export const walkable = (op: OperationMetadata): boolean =>
  !op.hidden && op.options.rateLimit === undefined && op.provider === undefined && op.controller === undefined;

export async function restFaces(face: Face): Promise<void> {
  const { leak } = face.sight;
  const params = new Map(mcpTools(leak.api).map((t) => [t.operation, t.queryArguments]));
  for (const op of leak.api.resources.flatMap((r) => r.operations).filter(walkable)) {
    if (op.isCollection) await collectionFaces(face, op, params.get(op) ?? []);
    else if (op.kind === 'Get') await itemFaces(face, op);
  }
}

/** Writes come after every read, so that a write wrongly let through shows in the store's comparison alone. */
export async function restWrites(face: Face): Promise<void> {
  for (const op of face.sight.leak.api.resources.flatMap((r) => r.operations).filter(walkable)) {
    if (op.kind === 'Post') await postFaces(face, op);
    else if (['Put', 'Patch', 'Delete'].includes(op.kind)) await writeFaces(face, op);
  }
}

const send = (face: Face, method: string, path: string, headers: Record<string, string>, body?: unknown) =>
  request(face.url, method, path, {
    headers: { ...headers, ...(face.sight.caller.token ? { Authorization: `Bearer ${face.sight.caller.token}` } : {}) },
    ...(body === undefined ? {} : { body }),
  });

interface Walked {
  status: number;
  iris: string[];
  totals: unknown[];
  pages: string[];
  last?: string;
}

/** Follows `view.next` from the first page (a QUERY sends its body with each); checks every body on the way. */
async function walk(face: Face, op: OperationMetadata, path: string, body: unknown, echoed: string[]): Promise<Walked> {
  const walked: Walked = { status: 0, iris: [], totals: [], pages: [] };
  const limit = face.sight.world.of(op.resource).length + 3;
  for (let next: string | undefined = path; next !== undefined && walked.pages.length < limit;) {
    const r: HttpResponse = await send(face, op.method, next, { Accept: JSON_LD }, body);
    face.sight.check(r.text, `${op.method} ${next}`, echoed);
    walked.status = r.status;
    if (r.status !== 200) return walked;
    walked.pages.push(next);
    const doc = r.json as {
      member?: { '@id': string }[];
      totalItems?: number;
      view?: { next?: string; last?: string };
    };
    walked.iris.push(...(doc.member ?? []).map((m) => m['@id']));
    if ('totalItems' in doc) walked.totals.push(doc.totalItems);
    walked.last ??= doc.view?.last;
    next = doc.view?.next;
  }
  return walked;
}

async function collectionFaces(face: Face, op: OperationMetadata, params: string[]): Promise<void> {
  const { sight } = face;
  const visible = (await sight.visible(op)).map((r) => r.iri);
  const body = op.method === 'QUERY' ? {} : undefined;
  const all = await walk(face, op, op.path, body, []);
  const where = `${op.method} ${op.path}`;
  // An operation's `security` may refuse the caller altogether (401, 403): then nothing is listed to compare.
  if (refused(op, all.status)) return;
  sight.expect(all.status === 200, () => `${where} answers ${all.status}`);
  sight.expect(same(all.iris, visible), () => `${where} lists ${all.iris.join(' ')}, not ${visible.join(' ')}`);
  for (const total of all.totals)
    sight.expect(total === visible.length, () => `${where}: totalItems ${total}, not ${visible.length}`);
  if (all.last !== undefined && all.pages.length > 1)
    sight.expect(
      all.last === all.pages.at(-1),
      () => `${where}: last is ${all.last}, the last page ${all.pages.at(-1)}`,
    );
  for (const [format, types] of Object.entries(sight.leak.api.settings.formats)) {
    if (format === 'jsonld' || !types[0]) continue;
    const r = await send(face, op.method, op.path, { Accept: types[0] }, body);
    sight.check(r.text, `${where} as ${types[0]}`);
    const members = Array.isArray(r.json) ? r.json : (r.json as { data?: unknown[] } | undefined)?.data;
    if (Array.isArray(members))
      sight.expect(members.length <= visible.length, () => `${where} as ${types[0]}: ${members.length} members`);
  }
  // Each parameter twice: with a value of a row the caller reads, and of one they do not (another user's).
  const rows = face.sight.world.of(op.resource);
  const hidden = rows.filter((r) => !visible.includes(r.iri));
  for (const param of params.filter((p) => !PAGING.has(p)))
    for (const among of [rows.filter((r) => visible.includes(r.iri)), hidden])
      await probe(face, op, param, visible, parameterValue(face, among, param));
  if (params.includes('itemsPerPage')) await countOnly(face, op, visible);
  if (op.method === 'QUERY') await queryBodies(face, op, visible);
}

/** One declared parameter with a value drawn from any row (another caller's too): never more than the scope. */
async function probe(
  face: Face,
  op: OperationMetadata,
  param: string,
  visible: string[],
  value: string | undefined,
): Promise<void> {
  if (value === undefined) return;
  const query = new URLSearchParams({ [param]: value }).toString();
  const walked = await walk(face, op, `${op.path}?${query}`, op.method === 'QUERY' ? {} : undefined, [value]);
  filtered(face, `${op.method} ${op.path}?${query}`, walked, visible, {
    everyItem: param.startsWith('order['),
    indexed: optionValue(op, 'elasticsearch') === true,
    cursor: cursorParameters(op).includes(param),
  });
}

/** `itemsPerPage=0`: no member, and the count alone (a count of its own, not a page's), of the caller's rows. */
async function countOnly(face: Face, op: OperationMetadata, visible: string[]): Promise<void> {
  const path = `${op.path}?itemsPerPage=0`;
  const walked = await walk(face, op, path, op.method === 'QUERY' ? {} : undefined, []);
  if (walked.status !== 200) return face.sight.expect(false, () => `GET ${path} answers ${walked.status}`);
  face.sight.expect(walked.iris.length === 0, () => `GET ${path} lists ${walked.iris.join(' ')}`);
  for (const total of walked.totals)
    face.sight.expect(total === visible.length, () => `GET ${path}: totalItems ${total}, not ${visible.length}`);
}

/** A QUERY body naming each of the operation's declared parameters, values drawn from any row. */
async function queryBodies(face: Face, op: OperationMetadata, visible: string[]): Promise<void> {
  const declared = Object.keys((op.options.parameters ?? {}) as Record<string, unknown>);
  for (const name of declared) {
    const value = parameterValue(face, face.sight.world.of(op.resource), name);
    if (value === undefined) continue;
    const walked = await walk(face, op, op.path, { [name]: value }, [value]);
    filtered(face, `QUERY ${op.path} {${name}: ${value}}`, walked, visible, {
      everyItem: false,
      indexed: optionValue(op, 'elasticsearch') === true,
      cursor: false,
    });
  }
}

function filtered(
  face: Face,
  where: string,
  walked: Walked,
  visible: string[],
  { everyItem, indexed, cursor }: { everyItem: boolean; indexed: boolean; cursor: boolean },
): void {
  const { sight } = face;
  // A parameter on a property the caller may not read answers 400 (secure by default): nothing to compare. A
  // full-text filter on an index read whose scope the engine is not asked fails (500) rather than widen.
  if (walked.status === 400 || (walked.status === 500 && indexed)) return;
  sight.expect(walked.status === 200, () => `${where} answers ${walked.status}`);
  const outside = walked.iris.filter((iri) => !visible.includes(iri));
  sight.expect(outside.length === 0, () => `${where} lists ${outside.join(' ')}, outside the scope`);
  if (everyItem) sight.expect(same(walked.iris, visible), () => `${where} lists ${walked.iris.join(' ')}`);
  // A cursor collection's own parameters (`id[lt]`) are its cursor, not a filter of its totalItems: then the count
  // lies between what is listed and the caller's rows; else it is what is listed.
  for (const total of walked.totals)
    sight.expect(
      typeof total === 'number' &&
        (cursor ? total >= walked.iris.length && total <= visible.length : total === walked.iris.length),
      () => `${where}: totalItems ${total}, ${walked.iris.length} listed, ${visible.length} in scope`,
    );
}

/**
 * A value for a query parameter: `order[x]` a direction, `exists[x]` a boolean, else the value of the property (a
 * path through relations too) in one of `rows`, drawn at random.
 */
export function parameterValue(face: Face, rows: readonly Row[], param: string): string | undefined {
  if (param.startsWith('order[')) return face.pick(2) ? 'asc' : 'desc';
  if (param.startsWith('exists[')) return face.pick(2) ? 'true' : 'false';
  const path = param.replace(/\[.*$/, '').split('.');
  let value: unknown = rows[face.pick(rows.length)]?.values[path[0]!];
  for (const name of path.slice(1))
    value = typeof value === 'string' ? face.sight.world.byIri.get(value)?.values[name] : undefined;
  if (value === undefined || value === null || typeof value === 'object') return undefined;
  const text = String(value);
  if (param.endsWith('[between]')) return `${text}..${text}`;
  // A partial text search: part of the value, so that it may match other rows' values too.
  return typeof value === 'string' && face.pick(2) ? text.slice(0, Math.max(3, text.length - 2)) : text;
}

async function itemFaces(face: Face, op: OperationMetadata): Promise<void> {
  const { sight } = face;
  const unknownPath = itemPath(op, sight.world.unknownId(op.resource));
  const unknown = await send(face, 'GET', unknownPath, { Accept: JSON_LD });
  for (const row of sight.world.of(op.resource)) {
    const path = itemPath(op, row.id);
    const r = await send(face, 'GET', path, { Accept: JSON_LD });
    sight.check(r.text, `GET ${path}`, [path]);
    if (await sight.holds(op, row, 'read')) {
      sight.expect(r.status === 200 || refused(op, r.status), () => `GET ${path} answers ${r.status}, in scope`);
      continue;
    }
    sight.expect(
      r.status === 404 && r.text === unknown.text.split(unknownPath).join(path),
      () => `GET ${path} answers ${r.status} ${r.text.slice(0, 200)}, not as ${unknownPath} (${unknown.status})`,
    );
  }
}

/** The parameters a cursor collection pages with: `field[lt]`, `field[gt]` of each of its cursor's fields. */
function cursorParameters(op: OperationMetadata): string[] {
  const fields = optionValue(op, 'paginationViaCursor');
  if (!Array.isArray(fields)) return [];
  return fields.flatMap((f: { field?: string }) => (f.field ? [`${f.field}[lt]`, `${f.field}[gt]`] : []));
}

/** Whether the operation's `security` refused the caller (its scope alone never answers 401 or 403 on a read). */
export const refused = (op: OperationMetadata, status: number): boolean =>
  (status === 401 || status === 403) && optionValue(op, 'security') !== undefined;

export const itemPath = (op: OperationMetadata, id: number | string): string =>
  op.path.replace(/\{[^}]+\}/, encodeURIComponent(String(id)));

/** A PUT, PATCH or DELETE of each row outside the read scope (404) or the write scope (403). */
async function writeFaces(face: Face, op: OperationMetadata): Promise<void> {
  const { sight } = face;
  for (const row of sight.world.of(op.resource)) {
    const expected = await sight.refusal(op, row);
    if (expected === undefined) continue;
    const path = itemPath(op, row.id);
    const [headers, body] = writeBody(face, op, row);
    const r = await send(face, op.method, path, headers, body);
    sight.check(r.text, `${op.method} ${path}`, [path, ...echoedValues(body)]);
    sight.expect(
      r.status === expected,
      () => `${op.method} ${path} answers ${r.status}, not ${expected}: ${r.text.slice(0, 200)}`,
    );
  }
}

/** A POST of a copy of each row the caller's write scope refuses: never stored. */
async function postFaces(face: Face, op: OperationMetadata): Promise<void> {
  const { sight } = face;
  for (const row of sight.world.of(op.resource)) {
    if (!(await sight.refusesCopy(op, row))) continue;
    const body = copyOf(row);
    const r = await send(face, 'POST', op.path, { 'Content-Type': JSON_LD, Accept: JSON_LD }, body);
    sight.check(r.text, `POST ${op.path} (a copy of ${row.iri})`, echoedValues(body));
    sight.expect(r.status >= 400, () => `POST ${op.path} of a copy of ${row.iri} answers ${r.status}`);
  }
}

/** The row's values but its identifier. */
export const copyOf = (row: Row): Record<string, unknown> =>
  Object.fromEntries(Object.entries(row.values).filter(([name]) => name !== row.resource.identifier?.name));

/** A change to the row: one of its tokens replaced (nothing to change: an empty patch). */
export function changeOf(row: Row): Record<string, unknown> {
  const name = Object.keys(row.values).find((n) => row.tokens.includes(row.values[n] as string));
  return name ? { [name]: 'changed-by-the-leak-test' } : {};
}

/** The body of a PUT (the row, one token changed) or a PATCH (the change alone); a DELETE has none. */
export function writeDocument(op: OperationMetadata, row: Row): Record<string, unknown> | undefined {
  if (op.kind === 'Put') return { ...copyOf(row), ...changeOf(row) };
  return op.kind === 'Patch' ? changeOf(row) : undefined;
}

function writeBody(face: Face, op: OperationMetadata, row: Row): [Record<string, string>, unknown] {
  const body = writeDocument(op, row);
  if (op.kind !== 'Patch') return [body ? { 'Content-Type': JSON_LD } : {}, body];
  const type = face.sight.leak.api.settings.patchFormats[0] ?? 'application/merge-patch+json';
  return [{ 'Content-Type': type }, body];
}

const echoedValues = (body: unknown): string[] =>
  body && typeof body === 'object' ? Object.values(body).flatMap((v) => (typeof v === 'string' ? [v] : [])) : [];

export const same = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');
