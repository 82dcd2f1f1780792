/**
 * The `mercure` and `messenger` blocks of `config`, resolved with the catalogue's defaults, and the
 * message handlers they name, imported once at load.
 */
import * as A from '../../grammar/ast.js';
import { SETTINGS } from '../../grammar/catalogue/index.js';
import { configEntry } from '../../grammar/model.js';
import { loadCode, type CodeFunction } from './code.js';

export type TransportName = 'sync' | 'embedded' | 'amqp';

export interface MercureSettings {
  /** 'builtin', or the URL of an external hub. */
  hub: string;
  publicUrl?: string;
  publisherJwtEnv: string;
  publisherJwtSecretEnv: string;
  subscriberJwtSecretEnv: string;
  historySize: number;
  heartbeatSeconds: number;
  subscriberBuffer: number;
  publishRetries: number;
}

export interface RetryStrategy {
  maxRetries: number;
  delay: number;
  multiplier: number;
  maxDelay: number;
}

export interface MessengerSettings {
  transport: TransportName;
  routing: Record<string, TransportName>;
  queue: string;
  failureQueue: string;
  /** The broker URL: MESSENGER_TRANSPORT_DSN, else `messenger.amqp.dsn`. */
  amqpDsn: string;
  retry: RetryStrategy;
  redeliverTimeoutSeconds: number;
}

type Getter = <T>(path: string) => T;

function getter(config: A.ObjectValue | undefined): Getter {
  return <T>(path: string): T => {
    const entry = configEntry(config, path);
    const value = entry?.value ? (A.toPlain(entry.value) as T) : undefined;
    return value ?? (SETTINGS.find((s) => s.path === path)?.default as T);
  };
}

export function resolveMercure(config: A.ObjectValue | undefined): MercureSettings | undefined {
  const get = getter(config);
  const hub = get<string | undefined>('mercure.hub');
  if (!hub) return undefined;
  return {
    hub,
    publicUrl: get<string | undefined>('mercure.public_url'),
    publisherJwtEnv: get('mercure.publisher_jwt_env'),
    publisherJwtSecretEnv: get('mercure.publisher_jwt_secret_env'),
    subscriberJwtSecretEnv: get('mercure.subscriber_jwt_secret_env'),
    historySize: get('mercure.history_size'),
    heartbeatSeconds: get('mercure.heartbeat'),
    subscriberBuffer: get('mercure.subscriber_buffer'),
    publishRetries: get('mercure.publish_retries'),
  };
}

export function resolveMessenger(
  config: A.ObjectValue | undefined,
  env: NodeJS.ProcessEnv = process.env,
): MessengerSettings {
  const get = getter(config);
  const queue = get<string>('messenger.queue');
  return {
    transport: get('messenger.transport'),
    routing: get<Record<string, TransportName> | undefined>('messenger.routing') ?? {},
    queue,
    failureQueue: get<string | undefined>('messenger.failure_queue') ?? `${queue}.failed`,
    amqpDsn: env.MESSENGER_TRANSPORT_DSN || get('messenger.amqp.dsn'),
    retry: {
      maxRetries: get('messenger.retry.max_retries'),
      delay: get('messenger.retry.delay'),
      multiplier: get('messenger.retry.multiplier'),
      maxDelay: get('messenger.retry.max_delay'),
    },
    redeliverTimeoutSeconds: get('messenger.redeliver_timeout'),
  };
}

/** The handlers of `messenger.handlers`, by message class. */
export async function loadHandlers(
  config: A.ObjectValue | undefined,
  baseDir: string,
): Promise<Map<string, CodeFunction>> {
  const refs = getter(config)<Record<string, string> | undefined>('messenger.handlers') ?? {};
  const out = new Map<string, CodeFunction>();
  for (const [name, ref] of Object.entries(refs))
    out.set(name, await loadCode(ref, baseDir, `message handler of ${name}`));
  return out;
}
