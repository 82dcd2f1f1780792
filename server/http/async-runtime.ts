/**
 * What an API needs beyond its routes when it publishes or dispatches: its Mercure publisher (and the
 * built-in hub's route), the hub announced on its responses (`Link: <hub>; rel="mercure"`), and its message
 * bus with the default persistence handlers may use.
 */
import type { Transaction } from '../pipeline/relations/referential-actions.js';
import type { Context } from 'koa';
import type { Logger } from 'pino';
import { createBus } from '../messenger/index.js';
import type { ApiMetadata, OperationMetadata } from '../metadata/types.js';
import { storePersistence } from '../pipeline/writes/message-persistence.js';
import { usePublisher } from '../pipeline/writes/mercure-updates.js';
import { BuiltinHub, HUB_PATH, hubUrl, publisherFor, resourcePublishes } from '../realtime/index.js';
import type { Collection, Store } from '../store/types.js';
import type { newRouter } from './router.js';

export interface AsyncRuntime {
  /** Adds the hub's Link header to a response of `op` when its resource publishes. */
  announceHub(ctx: Context, op: OperationMetadata): void;
  /** Registers the built-in hub's route. */
  mount(router: ReturnType<typeof newRouter>): void;
}

export function startAsyncRuntime(
  api: ApiMetadata,
  store: Store,
  collections: Map<string, Collection>,
  logger: Logger,
  transaction?: Transaction,
): AsyncRuntime {
  const publisher = publisherFor(api, logger);
  usePublisher(api, publisher);
  createBus(api, store, storePersistence(api, collections, logger, transaction), logger);
  const publishes = new Set(api.resources.filter((r) => resourcePublishes(r, api.settings)).map((r) => r.shortName));
  return {
    announceHub(ctx, op) {
      if (!publishes.has(op.resource.shortName)) return;
      const hub = hubUrl(api.settings, `${ctx.protocol}://${ctx.host}`);
      if (hub) ctx.append('Link', `<${hub}>; rel="mercure"`);
    },
    mount(router) {
      if (!(publisher instanceof BuiltinHub)) return;
      router.register(HUB_PATH, ['GET', 'POST'], async (ctx: Context) => {
        ctx.respond = false; // the hub writes the response itself (an event stream stays open)
        await publisher.handle(ctx.req, ctx.res);
      });
    },
  };
}
