/**
 * Mercure over HTTP: the hub announced on the responses of publishing resources (`Link: <hub>; rel="mercure"`)
 * and the built-in hub's route, when the runtime's publisher is the built-in hub.
 */
import type { Context } from 'koa';
import type { OperationMetadata } from '../metadata/types.js';
import type { Runtime } from '../pipeline/runtime.js';
import { BuiltinHub, HUB_PATH, hubUrl, resourcePublishes } from '../realtime/index.js';
import type { newRouter } from './router.js';

/** Adds the hub's Link header to the responses of `op` when its resource publishes (a no-op otherwise). */
export function hubAnnouncement(runtime: Runtime, op: OperationMetadata): (ctx: Context) => void {
  const settings = runtime.api.settings;
  if (!resourcePublishes(op.resource, settings)) return () => undefined;
  return (ctx) => {
    const hub = hubUrl(settings, `${ctx.protocol}://${ctx.host}`);
    if (hub) ctx.append('Link', `<${hub}>; rel="mercure"`);
  };
}

/** Registers the built-in hub's route (GET subscribes, POST publishes) when the runtime publishes to it. */
export function mountHub(router: ReturnType<typeof newRouter>, runtime: Runtime): void {
  const publisher = runtime.publisher;
  if (!(publisher instanceof BuiltinHub)) return;
  router.register(HUB_PATH, ['GET', 'POST'], async (ctx: Context) => {
    ctx.respond = false; // the hub writes the response itself (an event stream stays open)
    await publisher.handle(ctx.req, ctx.res);
  });
}
