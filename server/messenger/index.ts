/** The message bus of each loaded API, and closing them all when the process stops serving. */
import type { Logger } from 'pino';
import type { ApiMetadata } from '../metadata/types.js';
import type { Store } from '../store/types.js';
import { MessageBus } from './bus.js';
import type { Persistence } from './handle.js';

export { MessageBus, MessengerConfigError } from './bus.js';
export { newEnvelope, type Envelope } from './envelope.js';
export type { Persistence } from './handle.js';
export { TransportUnavailableError } from './transports/transport.js';

const buses = new WeakMap<ApiMetadata, MessageBus>();
const open = new Set<MessageBus>();

export function createBus(api: ApiMetadata, store: Store, persistence: Persistence, logger: Logger): MessageBus {
  const bus = new MessageBus(api, store, persistence, logger);
  buses.set(api, bus);
  open.add(bus);
  return bus;
}

export const busOf = (api: ApiMetadata): MessageBus | undefined => buses.get(api);

export async function closeBuses(): Promise<void> {
  await Promise.all([...open].map((b) => b.close()));
  open.clear();
}
