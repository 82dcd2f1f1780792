/** The message bus: what the rest of the server uses of messenger/. */
export { MessageBus, MessengerConfigError } from './bus.js';
export { newEnvelope, type Envelope, type Failure } from './envelope.js';
export type { Persistence, WriteGuard } from './handle.js';
export { TransportUnavailableError, type FailureQueue, type Selection } from './transports/transport.js';
