/**
 * The runtime of a generated client (docs/client.md), shipped as it compiles in every package: it imports nothing
 * and uses only `fetch` and `EventSource` (browsers, Node 20+, Bun, Deno); under 5 kB gzipped (package.test.ts).
 */

/** The IRI of an item of resource `R` (`/books/1`). A plain string is accepted; another resource's IRI is not. */
export type Iri<R extends string = string> = string & { readonly __resource?: R };

/** A problem the API answered (RFC 9457), or status 0 when no answer came (network failure, aborted call). */
export interface Problem<S extends number = number> {
  status: S;
  title?: string;
  detail: string;
  type?: string;
}

/** One violated constraint of a 422: `propertyPath` names a key path of the input (`''`: the whole item). */
export interface Violation<P extends string = string> {
  propertyPath: P | '';
  message: string;
  code?: string;
}

export interface ValidationProblem<P extends string = string> extends Problem<422> {
  violations: Violation<P>[];
}

/** What a call returns: the data, or the error, never thrown. */
export type Result<T, E> = { data: T; error?: undefined } | { data?: undefined; error: E };

/** The key paths of `T` a violation can name: `title`, `author.name`, `tags[0]` (three levels deep). */
export type Paths<T, D extends 0[] = []> = D['length'] extends 3
  ? never
  : { [K in Extract<keyof T, string>]-?: K | SubPaths<K, NonNullable<T[K]>, D> }[Extract<keyof T, string>];
type SubPaths<K extends string, V, D extends 0[]> = V extends string
  ? never
  : V extends readonly (infer U)[]
    ? | `${K}[${number}]`
      | (U extends string ? never : U extends object ? `${K}[${number}].${Paths<U, [...D, 0]>}` : never)
    : V extends object
      ? `${K}.${Paths<V, [...D, 0]>}`
      : never;

/** A page of a collection: its members, the total when the pagination mode counts, the neighbours' URLs. */
export interface Page<T> {
  members: T[];
  totalItems?: number;
  first?: string;
  last?: string;
  previous?: string;
  next?: string;
}

/** An item as format `F` gives it: plain JSON items, and the items they embed, have no `@id` nor `@type`. */
export type As<F, T> = F extends 'json' ? Plain<T> : T;
type Plain<T> = T extends string | number | boolean | null | undefined
  ? T
  : T extends readonly (infer U)[]
    ? Plain<U>[]
    : { [K in keyof T as K extends '@id' | '@type' ? never : K]: Plain<T[K]> };

/**
 * A page in format `F` of an operation whose pages always, never or maybe (as the client asks) count their items;
 * a plain JSON page is a bare array: it holds no total.
 */
export type Paged<F, T, N extends 'always' | 'never' | 'maybe'> = F extends 'json'
  ? Omit<Page<T>, 'totalItems'>
  : N extends 'always'
    ? Page<T> & { totalItems: number }
    : N extends 'never'
      ? Omit<Page<T>, 'totalItems'>
      : Page<T>;

/** An update of a subscribed topic: the item's document, or only its `@id` when it was deleted. */
export interface UpdateEvent {
  /** The event's id: pass it as `lastEventId` to resume after it. */
  id: string;
  type: string;
}

/** The part of the EventSource standard the client uses (browsers', Deno's, Bun's, or the `eventsource` package). */
export interface EventSourceLike {
  addEventListener(
    type: string,
    listener: (event: { data?: unknown; lastEventId?: string; type: string }) => void,
  ): void;
  close(): void;
}
export type EventSourceConstructor = new (url: string, init?: { withCredentials?: boolean }) => EventSourceLike;

/** The formats a client can speak: JSON-LD (Hydra pages), plain JSON (bare arrays), JSON:API. */
export type Format = 'jsonld' | 'json' | 'jsonapi';

export interface ClientOptions {
  /** Where the API is served: `https://api.example.com` (IRIs are resolved against it). */
  baseUrl: string;
  /** The format asked for and sent (one the API serves): JSON-LD where served, else the first the API serves. */
  format?: Format;
  /** A bearer token, or a function that gives one (called before every request; undefined sends none). */
  token?: string | (() => string | undefined | Promise<string | undefined>);
  headers?: Record<string, string>;
  fetch?: typeof fetch;
  /** Where `globalThis.EventSource` is missing (Node 20): `EventSource` of the `eventsource` package. */
  EventSource?: EventSourceConstructor;
}

export interface CallOptions {
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

/**
 * The options of a read in JSON:API: the relationship paths whose items the answer includes (`author`,
 * `author.publisher`), and per type the members its objects keep (sparse fieldsets, `{ Book: ['title'] }`).
 */
export interface ReadOptions<I extends string = string, T = Record<string, string>> extends CallOptions {
  include?: I[];
  fields?: { [N in keyof T]?: T[N][] };
}

/**
 * What a JSON:API read of one output type may ask for (the package declares one per output type read): the type's
 * name, its identifier, its items, and per relation whose items `include` may add, the shape of those items.
 */
export interface Shape {
  type: string;
  id: string;
  item: unknown;
  relations: { [name: string]: Shape };
}

type Rel<S extends Shape> = Extract<keyof S['relations'], string>;

/** The relationship paths a read of shape `S` may include (`author`, `author.publisher`), three levels deep. */
export type IncludePaths<S extends Shape, D extends 0[] = []> = D['length'] extends 3
  ? never
  : { [K in Rel<S>]: K | `${K}.${IncludePaths<S['relations'][K], [...D, 0]>}` }[Rel<S>];

type Reached<S extends Shape, D extends 0[] = []> = D['length'] extends 4
  ? never
  : S | { [K in Rel<S>]: Reached<S['relations'][K], [...D, 0]> }[Rel<S>];
type Members<S> = S extends Shape ? Exclude<Extract<keyof S['item'], string>, '@id' | '@type' | S['id']> : never;

/** Per type a read of shape `S` (and what it includes) can show: the members `fields` may keep. */
export type FieldNames<S extends Shape> = { [N in Reached<S>['type']]: Members<Extract<Reached<S>, { type: N }>> };

/** The options of a read in format `F`: `include` and `fields` in JSON:API only. */
export type Reading<F, S extends Shape> = F extends 'jsonapi'
  ? ReadOptions<IncludePaths<S>, FieldNames<S>>
  : CallOptions & { include?: never; fields?: never };

type Head<P> = P extends `${infer H}.${string}` ? H : P;
type Tail<P, K> = K extends string ? (P extends `${K}.${infer R}` ? R : never) : never;
type Kept<S extends Shape, O> = O extends { fields: { [N in S['type']]: (infer P)[] } }
  ? P | '@id' | '@type' | S['id']
  : PropertyKey;
/** A relation's value with its items included: each item, or its IRI where not included (absent stays absent). */
type Swap<V, X> = V extends readonly (infer U)[]
  ? (X | Extract<U, string>)[]
  : V extends string | object
    ? X | Extract<V, string>
    : V;
type Sparse<S extends Shape, O, P> = {
  [K in keyof S['item'] as K extends Kept<S, O> ? K : never]: K extends Head<P> & Rel<S>
    ? Swap<S['item'][K], Sparse<S['relations'][K], O, Tail<P, K>>>
    : S['item'][K];
};

/**
 * An item read with options `O`: under `fields`, only the members kept (and `@id`, `@type`, the identifier); each
 * relation `include` names, its item read the same way, or its IRI (an item the reader may not see is not included).
 */
export type Read<S extends Shape, O> = O extends { include?: undefined; fields?: undefined }
  ? S['item']
  : Sparse<S, O, O extends { include: (infer P)[] } ? P : never>;

export interface SubscribeOptions {
  /** Resume after this event (the hub replays what it still holds): Mercure's `lastEventID`. */
  lastEventId?: string;
  /**
   * A subscriber JWT, for private updates (or a function that gives one): sent as the hub's `authorization` query
   * parameter, since an EventSource sends no header.
   */
  token?: string | (() => string | undefined | Promise<string | undefined>);
  /** The SSE event type the updates come as (`mercure: { type }`); a resource's `subscribe` knows its own. */
  type?: string;
  onError?: (event: unknown) => void;
}

/** `iterate()` met an error answer: the problem it got. */
export class ClientProblem extends Error {
  constructor(readonly problem: Problem) {
    super(`${problem.status}: ${problem.detail}`);
  }
}

/**
 * Operation flags of the table (`index.js`): a collection, a body sent, a merge patch, a QUERY body, a collection
 * whose pages `iterate()` may count in plain JSON (whose pages carry no `next` link).
 */
export const COLLECTION = 1;
export const BODY = 2;
export const PATCH = 4;
export const QUERY = 8;
export const COUNTED = 16;

/**
 * One operation: [function name, method, path template, flags, and for a QUERY the criteria sent in its URL
 * rather than its body: the pagination parameters, which the server reads from the URL only].
 */
export type OperationRow = [string, string, string, number, string[]?];

/**
 * For JSON:API, per resource namespace: its type, its identifier and whether it is a number (read back from the
 * resource object's `id`, the IRI), and the type of each relation (sent as a relationship).
 */
export type JsonApiTypes = Record<string, [string, string, number, Record<string, string>]>;

/** The API: its formats' media types and, per resource namespace, its operations. */
export interface ApiTable {
  /** The media type of each format the API serves that the client speaks, the default first. */
  formats: Partial<Record<Format, string>>;
  /** The PATCH media types the API takes (`patch_formats`), the one sent first. */
  patch: string[];
  /** The page parameter `iterate()` counts with on COUNTED operations. */
  page: string;
  /** The SSE event type of the updates of each resource namespace that sets one. */
  events: Record<string, string>;
  resources: Record<string, OperationRow[]>;
  jsonapi?: JsonApiTypes;
}

type Json = Record<string, unknown>;
type Answer = Result<unknown, Problem>;

const hydra = (doc: Json, key: string): unknown => doc[key] ?? doc[`hydra:${key}`];

/** `{ order: { price: 'desc' }, title: ['a', 'b'] }` → `order[price]=desc&title[]=a&title[]=b`. */
function queryString(value: unknown, prefix: string, out: URLSearchParams): URLSearchParams {
  if (Array.isArray(value)) for (const v of value) queryString(v, `${prefix}[]`, out);
  else if (value !== null && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) queryString(v, prefix ? `${prefix}[${k}]` : k, out);
  else if (value !== undefined) out.append(prefix, String(value));
  return out;
}

/**
 * A JSON:API resource object as the others' item: `@id`, `@type`, the identifier (from the IRI), each relation its
 * included item, else its IRI (also an item met again below itself).
 */
function fromJsonApi(types: JsonApiTypes, o: Json, included: Record<string, Json>, above: unknown[] = []): Json {
  const seen = [...above, o.id];
  const item: Json = { '@id': o.id, '@type': o.type, ...(o.attributes as Json) };
  const [, id, numeric] = Object.values(types).find((t) => t[0] === o.type) ?? [];
  if (id) {
    const last = decodeURIComponent(String(o.id).split(/[?#]/)[0].split('/').pop()!);
    item[id] = numeric ? Number(last) : last;
  }
  const to = ({ id }: Json) =>
    included[id as string] && !seen.includes(id) ? fromJsonApi(types, included[id as string], included, seen) : id;
  for (const [k, r] of Object.entries((o.relationships ?? {}) as Record<string, { data: Json | Json[] | null }>))
    if (r.data) item[k] = Array.isArray(r.data) ? r.data.map(to) : to(r.data);
  return item;
}

/** A JSON:API document's item, or page (read as a Hydra one: `meta.totalItems`, `links`), and what it includes. */
function fromJsonApiDocument(types: JsonApiTypes, doc: Json & { links?: Json }): unknown {
  const { data, links, meta } = doc;
  const included = Object.fromEntries(((doc.included ?? []) as Json[]).map((o) => [o.id, o]));
  if (!Array.isArray(data)) return fromJsonApi(types, data as Json, included);
  const member = data.map((o: Json) => fromJsonApi(types, o, included));
  return pageOf({ ...(meta as Json), member, view: { ...links, previous: links?.prev } });
}

/** The page a collection document holds (a plain JSON array: its items, nothing else known). */
function pageOf(doc: unknown): Page<unknown> {
  if (Array.isArray(doc)) return { members: doc };
  const d = doc as Json;
  const view = (hydra(d, 'view') ?? {}) as Json;
  const page: Page<unknown> = { members: (hydra(d, 'member') as unknown[]) ?? [] };
  const total = hydra(d, 'totalItems');
  if (typeof total === 'number') page.totalItems = total;
  for (const k of ['first', 'last', 'previous', 'next'] as const) {
    const link = hydra(view, k);
    if (typeof link === 'string') page[k] = link;
  }
  return page;
}

/** `/data/attributes/tags/0/name` → `tags[0].name` (`/data`: the whole item, `''`). */
const pathOf = (pointer = ''): string =>
  pointer
    .replace(/^\/data(\/(attributes|relationships))?\/?/, '')
    .replace(/\/(\d+)(?=\/|$)/g, '[$1]')
    .replace(/\//g, '.')
    .replace(/~1/g, '/')
    .replace(/~0/g, '~');

/** A JSON:API error document as a problem (a 422's errors as violations). */
function jsonApiProblem(status: number, errors: Json[]): Problem {
  const problem = { status, title: errors[0]?.title, detail: String(errors[0]?.detail ?? '') } as Json;
  if (status === 422)
    problem.violations = errors.map((e) => ({
      propertyPath: pathOf((e.source as Json | undefined)?.pointer as string | undefined),
      message: e.detail,
      code: e.code,
    }));
  return problem as unknown as Problem;
}

async function problemOf(response: Response): Promise<Problem> {
  const body = ((await response.json().catch(() => ({}))) ?? {}) as Json;
  if (Array.isArray(body.errors)) return jsonApiProblem(response.status, body.errors as Json[]);
  const detail = body.detail ?? hydra(body, 'description') ?? response.statusText;
  return { ...body, status: response.status, detail: String(detail) } as Problem;
}

/**
 * Sends a request to an absolute URL with the client's headers and token; no answer (network failure, aborted
 * call) is status 0.
 */
type Send = (
  method: string,
  url: string,
  body: unknown,
  type: string,
  call?: CallOptions,
) => Promise<Response | Problem<0>>;

function sender(accept: string, options: ClientOptions): Send {
  const fetcher = options.fetch ?? ((...a: Parameters<typeof fetch>) => fetch(...a));
  return async (method, url, body, type, call) => {
    const token = typeof options.token === 'function' ? await options.token() : options.token;
    const headers: Record<string, string> = { accept, ...options.headers, ...call?.headers };
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = type;
    try {
      return await fetcher(url, {
        method,
        headers,
        body: (body && JSON.stringify(body)) as string,
        signal: call?.signal,
      });
    } catch (e) {
      return { status: 0, title: 'No answer', detail: String(e) } as Problem<0>;
    }
  };
}

async function answer(response: Response | Problem<0>, collection: boolean, types?: JsonApiTypes): Promise<Answer> {
  if (!('headers' in response)) return { error: response };
  if (!response.ok) return { error: await problemOf(response) };
  const text = await response.text();
  if (!text) return { data: undefined };
  const doc: unknown = JSON.parse(text);
  if (types && /vnd\.api\+json/.test(response.headers.get('content-type') ?? ''))
    return { data: fromJsonApiDocument(types, doc as Json) };
  return { data: collection ? pageOf(doc) : doc };
}

/** A body in JSON:API: a relation given as IRIs (or null) is a relationship, anything else an attribute. */
function toJsonApi([type, , , relations]: JsonApiTypes[string], body: Json): Json {
  const attributes: Json = {};
  const relationships: Json = {};
  for (const [k, v] of Object.entries(body)) {
    const to = relations[k];
    if (to && [v].flat().every((i) => i === null || typeof i === 'string'))
      relationships[k] = { data: Array.isArray(v) ? v.map((id) => ({ type: to, id })) : v && { type: to, id: v } };
    else attributes[k] = v;
  }
  return { data: { type, attributes, relationships } };
}

/** The format a client speaks, its media type, and what JSON:API needs. */
interface Speaking {
  format: Format;
  media: string;
  patch: string[];
  jsonapi?: JsonApiTypes;
}

/** A request a call sends: `iterate()` sends it again for each next page (a QUERY keeps its method and body). */
interface Request {
  method: string;
  url: string;
  body: unknown;
  type: string;
  options?: CallOptions;
}

/** A call's arguments: its URI variables (one value, or an object of several), its body or query, its options. */
function request(
  speaking: Speaking,
  base: string,
  namespace: string,
  [, method, path, flags, inUrl = []]: OperationRow,
  args: unknown[],
): Request {
  const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
  const vars: Json = names.length > 1 ? (args.shift() as Json) : {};
  if (names.length === 1) vars[names[0]] = args.shift();
  let url = base + path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(vars[name])));
  let body = flags & (BODY | QUERY) ? (args.shift() ?? {}) : undefined;
  let query = (flags & COLLECTION && !(flags & QUERY) ? args.shift() : {}) as Json;
  if (flags & QUERY) {
    const criteria = { ...(body as Json) };
    query = Object.fromEntries(inUrl.filter((k) => k in criteria).map((k) => [k, criteria[k]]));
    for (const k of inUrl) delete criteria[k];
    body = criteria;
  }
  // JSON:API's read options, comma-separated lists: `include=author,tags`, `fields[Book]=title,author`.
  const { include, fields = {} } = (args[0] ?? {}) as ReadOptions;
  query = { ...query, include: include?.join() };
  for (const k in fields) query[`fields[${k}]`] = fields[k]!.join();
  const search = queryString(query, '', new URLSearchParams()).toString();
  if (search) url += `?${search}`;
  const { format, media, patch, jsonapi } = speaking;
  let type = media;
  if (flags & PATCH) type = format === 'jsonapi' && patch.includes(media) ? media : patch[0];
  else if (flags & QUERY) type = 'application/json';
  // A bulk POST's list is a list of JSON:API documents: the server reads each item as a single POST's body.
  const document = (b: Json) => toJsonApi(jsonapi![namespace], b);
  if (jsonapi && type === media && body) body = Array.isArray(body) ? body.map(document) : document(body as Json);
  return { method, url, body, type, options: args[0] as CallOptions | undefined };
}

type Run = (r: Request, many: boolean) => Promise<Answer>;

/** A link read at `from`: an absolute path is under the base URL (as calls' paths), any other resolved against `from`. */
const resolve = (link: string, base: string, from: string): string =>
  /^\/(?!\/)/.test(link) ? base + link : new URL(link, from).href;

/** Every item of every page, following `view.next` (page, partial and cursor pagination alike). */
async function* iterate(run: Run, base: string, first: Request, counted?: string): AsyncGenerator<unknown> {
  // A QUERY's next page is the same query on the next page's URL; any other next page is a GET.
  const next = first.method === 'QUERY' ? { ...first } : { ...first, method: 'GET', body: undefined };
  let result = await run(first, true);
  for (;;) {
    if (result.error) throw new ClientProblem(result.error);
    const page = result.data as Page<unknown>;
    yield* page.members;
    if (page.members.length === 0) return;
    if (page.next) next.url = resolve(page.next, base, next.url);
    else if (counted) {
      // A plain JSON page is a bare array: the next one is the page number after this one, until one is empty.
      const url = new URL(next.url);
      url.searchParams.set(counted, String(Number(url.searchParams.get(counted) ?? 1) + 1));
      next.url = url.href;
    } else return;
    result = await run(next, true);
  }
}

/** The hub announced (`Link: <hub>; rel="mercure"`) on the topic's path before any variable, else on the entrypoint. */
async function hubOf(send: Send, base: string, topic: string): Promise<string | undefined> {
  const path = topic.startsWith('/') ? topic.split('{')[0].replace(/\/$/, '') : '';
  for (const url of path ? [path, '/'] : ['/']) {
    const response = await send('GET', base + url, undefined, '');
    const link = 'headers' in response ? (response.headers.get('link') ?? '') : '';
    const hub = /<([^>]+)>\s*;\s*rel="?mercure"?/.exec(link)?.[1];
    if (hub) return new URL(hub, base + '/').href;
  }
  return undefined;
}

/** Opens the hub's event stream on the topic; resolves once the hub holds the subscription. */
async function listen(
  Source: EventSourceConstructor,
  hub: string,
  topic: string,
  handler: (data: unknown, event: UpdateEvent) => void,
  opts: SubscribeOptions,
): Promise<() => void> {
  const url = new URL(hub);
  url.searchParams.append('topic', topic);
  if (opts.lastEventId) url.searchParams.set('lastEventID', opts.lastEventId);
  const token = typeof opts.token === 'function' ? await opts.token() : opts.token;
  if (token) url.searchParams.set('authorization', token);
  const source = new Source(url.href, { withCredentials: true });
  source.addEventListener(opts.type ?? 'message', (e) =>
    handler(JSON.parse(String(e.data)), { id: e.lastEventId ?? '', type: e.type }),
  );
  // Resolved once the hub holds the subscription: an update published after that reaches the handler.
  await new Promise((opened, failed) => {
    source.addEventListener('open', opened);
    source.addEventListener('error', () => failed(new Error(`The Mercure hub ${hub} refused the subscription.`)));
  }).catch((e: unknown) => {
    source.close();
    throw e;
  });
  if (opts.onError) source.addEventListener('error', opts.onError);
  return () => source.close();
}

/** The client of one API: one namespace of calls per resource, and `subscribe`. */
export function createRuntime(table: ApiTable, options: ClientOptions): Record<string, unknown> {
  const base = options.baseUrl.replace(/\/+$/, '');
  const format = options.format ?? (Object.keys(table.formats)[0] as Format);
  const speaking: Speaking = { format, media: table.formats[format]!, patch: table.patch };
  if (format === 'jsonapi') speaking.jsonapi = table.jsonapi;
  const send = sender(speaking.media, options);
  const run: Run = async (r, many) =>
    answer(await send(r.method, r.url, r.body, r.type, r.options), many, speaking.jsonapi);
  const counted = format === 'json' ? table.page : undefined;

  /** Listens to a topic (an IRI or a URI template) on the API's hub; resolves with the function that stops it. */
  async function subscribe(
    topic: string,
    handler: (data: unknown, event: UpdateEvent) => void,
    opts: SubscribeOptions = {},
  ): Promise<() => void> {
    const Source =
      options.EventSource ?? (globalThis as unknown as { EventSource?: EventSourceConstructor }).EventSource;
    if (!Source)
      throw new Error('No EventSource: pass one in the client options (the `eventsource` package on Node 20).');
    const hub = await hubOf(send, base, topic);
    if (!hub) throw new Error(`The API announces no Mercure hub for ${topic}.`);
    return listen(Source, hub, topic, handler, opts);
  }

  const client: Record<string, unknown> = {};
  for (const [namespace, rows] of Object.entries(table.resources)) {
    const calls: Record<string, unknown> = {};
    for (const row of rows) {
      const call = (...a: unknown[]) => {
        const r = request(speaking, base, namespace, row, a);
        return run(r, !!(row[3] & COLLECTION) || Array.isArray(r.body));
      };
      calls[row[0]] =
        row[3] & COLLECTION
          ? Object.assign(call, {
              iterate: (...a: unknown[]) =>
                iterate(run, base, request(speaking, base, namespace, row, a), row[3] & COUNTED ? counted : undefined),
            })
          : call;
    }
    const list = calls.list as { iterate?: unknown } | undefined;
    if (list?.iterate) calls.iterate = list.iterate;
    calls.subscribe = (topic: string, handler: never, opts?: SubscribeOptions) =>
      subscribe(topic, handler, { type: table.events[namespace], ...opts });
    client[namespace] = calls;
  }
  client.subscribe = subscribe;
  return client;
}
