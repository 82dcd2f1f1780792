/**
 * `urlGenerationStrategy` (API Platform's UrlGeneratorInterface constants): how the IRIs and links a
 * response holds are written. 1 (ABS_PATH, the default) `/books/1`; 0 (ABS_URL) `http://host/books/1`,
 * from the request's scheme and its checked Host header (host.ts); 3 (NET_PATH) `//host/books/1`;
 * 2 (REL_PATH) relative to the request's path (`books/1` from `/books`, `../authors/2` from `/books/1`).
 * IRIs are stored and matched as absolute paths (iri.ts `iriPath`), whatever style wrote them.
 */
import { itemOperation, relativePath } from '../../protocol/iri.js';
import { optionValue, perOperation } from '../../metadata/options.js';
import type { RelationOutput } from './normalize.js';
import type { ApiMetadata, OperationMetadata, ResourceMetadata, Settings } from '../../metadata/types.js';

const ABS_URL = 0;
const REL_PATH = 2;
const NET_PATH = 3;

/** Turns an absolute path into an IRI in the chosen style. */
export type UrlStyle = (path: string) => string;

/** Where the request was sent: its origin (`http://host:port`) and its path, what IRIs are written relative to. */
export interface RequestPlace {
  origin: string;
  path: string;
}

const asPath: UrlStyle = (path) => path;

/** The style of an operation's strategy, for the request `at`. */
export function urlStyle(op: OperationMetadata | undefined, settings: Settings, at: RequestPlace): UrlStyle {
  const strategy = urlStrategy(op, settings);
  if (strategy === ABS_URL) return (path) => (path.startsWith('/') ? at.origin + path : path);
  if (strategy === NET_PATH)
    return (path) => (path.startsWith('/') ? at.origin.replace(/^[a-z][a-z0-9+.-]*:/i, '') + path : path);
  if (strategy === REL_PATH) return (path) => (path.startsWith('/') ? relativePath(at.path, path) : path);
  return asPath;
}

const operationStrategy = perOperation((op, settings): unknown => optionValue(op, settings, 'urlGenerationStrategy'));

const urlStrategy = (op: OperationMetadata | undefined, settings: Settings): unknown =>
  op ? operationStrategy(op, settings) : settings.defaults.urlGenerationStrategy;

/** The style of the IRIs of a resource's items: that of the operation building them (its item Get). */
export const itemStyle = (resource: ResourceMetadata | undefined, settings: Settings, at: RequestPlace): UrlStyle =>
  urlStyle(resource && itemOperation(resource), settings, at);

/**
 * Whether some item IRIs of the API are written relative to the request (REL_PATH): relative references
 * in request bodies are then read against the request's path, as a client that resolves them writes them.
 */
export function writesRelativeIris(api: ApiMetadata): boolean {
  let relative = relativeIris.get(api);
  if (relative === undefined) {
    relative = api.resources.some((r) => urlStrategy(itemOperation(r), api.settings) === REL_PATH);
    relativeIris.set(api, relative);
  }
  return relative;
}

/** `writesRelativeIris`, decided once per loaded API (every body asks). */
const relativeIris = new WeakMap<ApiMetadata, boolean>();

/**
 * Whether every IRI an operation's members show is an absolute path: their own and their relations'
 * (the stored member texts hold paths only, rendering.ts).
 */
export const showsPathsOnly = perOperation((op, api: ApiMetadata): boolean => {
  const targets = op.resource.properties.filter((p) => p.relation).map((p) => api.resource(p.relation!));
  return [op, itemOperation(op.resource), ...targets.map((r) => r && itemOperation(r))].every(
    (o) => urlStyle(o, api.settings, { origin: '', path: '/' }) === asPath,
  );
});

/** Stored relation values (an IRI or a list of them) in the style of their targets' item IRIs; undefined when all are paths. */
export function relationOutput(
  api: ApiMetadata,
  resource: ResourceMetadata,
  at: RequestPlace,
): RelationOutput | undefined {
  const styles = new Map<string, UrlStyle>();
  for (const p of resource.properties)
    if (p.relation) styles.set(p.name, itemStyle(api.resource(p.relation), api.settings, at));
  if ([...styles.values()].every((s) => s === asPath)) return undefined;
  return (p, value) => {
    const style = styles.get(p.name) ?? asPath;
    if (typeof value === 'string') return style(value);
    return Array.isArray(value) ? value.map((v) => (typeof v === 'string' ? style(v) : v)) : value;
  };
}

/** A page's `view` with its links (every value that is an absolute path) in the style. */
export function styledView(
  view: Record<string, unknown> | undefined,
  style: UrlStyle,
): Record<string, unknown> | undefined {
  if (!view || style === asPath) return view;
  return Object.fromEntries(
    Object.entries(view).map(([k, v]) => [k, typeof v === 'string' && v.startsWith('/') ? style(v) : v]),
  );
}
