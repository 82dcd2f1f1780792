/**
 * The runtime of a generated client (docs/client.md): shipped as it compiles, `runtime.js` beside
 * `runtime.d.ts`, in every package `apidsl client` writes. It imports nothing, not even from this
 * repository, and uses only `fetch` and `EventSource`, so that it runs in browsers, Node 20+, Bun and Deno;
 * its gzipped size is held under 5 kB by test/client/package.test.ts. The generated `index.js` hands it
 * the API's operation table; the generated `index.d.ts` types what it returns.
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

/** A JSON:API resource object as the others' item: `@id`, `@type`, the identifier (from the IRI), relations' IRIs. */
function fromJsonApi(types: JsonApiTypes, o: Json): Json {
  const item: Json = { '@id': o.id, '@type': o.type, ...(o.attributes as Json) };
  const [, id, numeric] = Object.values(types).find((t) => t[0] === o.type) ?? [];
  if (id) {
    const last = decodeURIComponent(String(o.id).split(/[?#]/)[0].split('/').pop()!);
    item[id] = numeric ? Number(last) : last;
  }
  for (const [k, r] of Object.entries((o.relationships ?? {}) as Record<string, { data: Json | Json[] | null }>))
    if (r.data) item[k] = Array.isArray(r.data) ? r.data.map((d) => d.id) : r.data.id;
  return item;
}

/** A JSON:API document's item, or page (read as a Hydra one: `meta.totalItems`, `links`). */
function fromJsonApiDocument(types: JsonApiTypes, { data, links, meta }: Json & { links?: Json }): unknown {
  if (!Array.isArray(data)) return fromJsonApi(types, data as Json);
  const member = data.map((o: Json) => fromJsonApi(types, o));
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
      const init = { method, headers, body: body === undefined ? undefined : JSON.stringify(body) };
      return await fetcher(url, { ...init, signal: call?.signal });
    } catch (e) {
      return { status: 0, title: 'No answer', detail: String(e) } as Problem<0>;
    }
  };
}

async function answer(response: Response | Problem<0>, collection: boolean, types?: JsonApiTypes): Promise<Answer> {
  if (!('headers' in response)) return { error: response };
  if (!response.ok) return { error: await problemOf(response) };
  const text = await response.text();
  const doc: unknown = text === '' ? undefined : JSON.parse(text);
  if (doc === undefined) return { data: doc };
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
  let query: unknown = flags & COLLECTION && !(flags & QUERY) ? args.shift() : undefined;
  if (flags & QUERY) {
    const criteria = { ...(body as Json) };
    query = Object.fromEntries(inUrl.filter((k) => k in criteria).map((k) => [k, criteria[k]]));
    for (const k of inUrl) delete criteria[k];
    body = criteria;
  }
  const search = queryString(query, '', new URLSearchParams()).toString();
  if (search) url += `?${search}`;
  const { format, media, patch, jsonapi } = speaking;
  let type = media;
  if (flags & PATCH) type = format === 'jsonapi' && patch.includes(media) ? media : patch[0];
  else if (flags & QUERY) type = 'application/json';
  if (jsonapi && type === media && body && !Array.isArray(body)) body = toJsonApi(jsonapi[namespace], body as Json);
  return { method, url, body, type, options: args[0] as CallOptions | undefined };
}

type Run = (r: Request, many: boolean) => Promise<Answer>;

/**
 * A link of a document read from `from`: an absolute path is under the base URL, as the calls' paths are; a
 * network path (`//host/books`), an absolute URL or a relative path (`books?page=2`: urlGenerationStrategy) is
 * resolved against the document's own URL.
 */
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

/**
 * The hub the API announces (`Link: <hub>; rel="mercure"`) on the topic's answer; for a URI template, on the
 * answer of its path before the first variable (`/books/{id}`: `/books`); else on the entrypoint's.
 */
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

  /**
   * Listens to a topic (an IRI or a URI template) on the API's Mercure hub; resolves with the unsubscribe function
   * once the hub holds the subscription.
   */
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
