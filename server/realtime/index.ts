/**
 * Real-time updates of an API: which operations publish (`mercure` option), the hub URL subscribers
 * discover, and the publishers of a service (the built-in hub or an external hub's client).
 */
import type { Logger } from 'pino';
import { v7 as uuidv7 } from 'uuid';
import type { PeerLink } from '../cluster/link.js';
import { optionValue } from '../metadata/options.js';
import type { ApiMetadata, OperationMetadata, ResourceMetadata, Settings } from '../metadata/types.js';
import { ExternalHubPublisher } from './external-hub.js';
import { BuiltinHub, HUB_PATH } from './hub.js';
import type { Publisher, Update } from './update.js';

export { BuiltinHub, HUB_PATH } from './hub.js';
export type { Publisher, Update } from './update.js';

/** The `mercure` option of an operation, resolved: undefined when it publishes nothing. */
export interface MercureOptions {
  topics?: string[];
  private: boolean;
  type?: string;
  retry?: number;
}

export function mercureOptions(op: OperationMetadata, settings: Settings): MercureOptions | undefined {
  if (!settings.mercure) return undefined;
  const value = optionValue(op, settings, 'mercure');
  // A scoped resource's updates are private whatever `mercure` says (docs/scopes.md, "Pushed updates"): only
  // subscribers authorized for the item's topic receive them. A scope on any of its operations counts (one on the
  // item Get alone hides items too), whichever operation made the change.
  const scoped = scopedResource(op, settings);
  if (value === true) return { private: scoped };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const o = value as Record<string, unknown>;
  return {
    topics: Array.isArray(o.topics) ? o.topics.map(String) : undefined,
    private: o.private === true || scoped,
    type: typeof o.type === 'string' ? o.type : undefined,
    retry: typeof o.retry === 'number' ? o.retry : undefined,
  };
}

/** Whether the operation, or any operation of its resource, has a scope. */
export const scopedResource = (op: OperationMetadata, settings: Settings): boolean =>
  [op, ...op.resource.operations].some((o) => optionValue(o, settings, 'scope') !== undefined);

/** Whether responses of this resource announce the hub (some operation of it publishes). */
export const resourcePublishes = (resource: ResourceMetadata, settings: Settings): boolean =>
  resource.operations.some((o) => !o.hidden && mercureOptions(o, settings) !== undefined);

/** The hub URL subscribers use: `public_url`, else the built-in hub on this origin, else the external hub. */
export function hubUrl(settings: Settings, origin: string): string | undefined {
  const m = settings.mercure;
  if (!m) return undefined;
  return m.publicUrl ?? (m.hub === 'builtin' ? `${origin}${HUB_PATH}` : m.hub);
}

/** What the API documentation says of a publishing resource: where its changes are pushed. */
export function hubNote(resource: ResourceMetadata, settings: Settings, origin: string): string | undefined {
  if (!resourcePublishes(resource, settings)) return undefined;
  return (
    `Every create, update and delete of a ${resource.shortName} is published to the Mercure hub ${hubUrl(settings, origin)} ` +
    '(topic: the item IRI; responses carry it as Link rel="mercure").'
  );
}

/**
 * A change of an item as an update: topics are the option's (`evaluated`, when some are expressions: topics.ts),
 * else the item's absolute IRI (canonical, as API Platform publishes) and its path (alternate, so `/books/{id}`
 * selectors match too).
 */
export function changeUpdate(
  options: MercureOptions,
  iri: string,
  origin: string | undefined,
  data: string,
  evaluated?: string[],
): Update {
  const topics = evaluated ?? options.topics ?? (origin ? [`${origin}${iri}`, iri] : [iri]);
  const update: Update = { topics, data, private: options.private };
  if (options.type) update.type = options.type;
  if (options.retry !== undefined) update.retry = options.retry;
  return update;
}

/** The publisher of a process without a hub of its own: its updates go to the hubs of the service's other processes. */
const sharingPublisher = (link: PeerLink): Publisher => ({
  publish: (update) => link.share({ ...update, id: `urn:uuid:${uuidv7()}` }),
  close: async () => undefined,
});

/**
 * The publishers of one service, one per hub configuration: a reloaded file (`serve --watch`) with the same hub
 * keeps its subscribers and history. Closing them ends open subscriptions, so that the server can close.
 */
export class Publishers {
  private readonly made = new Map<string, Publisher>();

  constructor(
    private readonly logger: Logger,
    /** How built-in hubs reach the service's other processes. */
    private readonly link: PeerLink,
    /**
     * Whether this process serves the built-in hub (`serve`); one that does not (`apidsl consume`) hands its
     * updates to the processes that do, through the link.
     */
    private readonly servesHub = true,
  ) {}

  /** The publisher of a loaded API, or undefined when it has no hub. */
  of(api: ApiMetadata): Publisher | undefined {
    const settings = api.settings.mercure;
    if (!settings) return undefined;
    const key = JSON.stringify(settings);
    let publisher = this.made.get(key);
    if (!publisher) {
      if (settings.hub !== 'builtin') publisher = new ExternalHubPublisher(settings, this.logger);
      else if (this.servesHub) publisher = new BuiltinHub(settings, this.logger, this.link);
      else publisher = sharingPublisher(this.link);
      this.made.set(key, publisher);
    }
    return publisher;
  }

  /** Ends the subscriptions of the built-in hubs, which would hold a draining server open; publishing goes on. */
  async endSubscriptions(): Promise<void> {
    await Promise.all([...this.made.values()].filter((p) => p instanceof BuiltinHub).map((p) => p.close()));
  }

  async close(): Promise<void> {
    await Promise.all([...this.made.values()].map((p) => p.close()));
    this.made.clear();
  }
}
