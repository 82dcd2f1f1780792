/**
 * A Mercure update (the protocol's publication fields) and what publishes one: the built-in hub or
 * the client of an external hub. Publishing never waits and never throws: a write that succeeded
 * stays successful whatever happens to its update.
 */
export interface Update {
  /** The first topic is the canonical one, the others alternates (a subscriber matching any gets it). */
  topics: string[];
  data: string;
  private: boolean;
  /** SSE `event` field. */
  type?: string;
  /** SSE `retry` field (ms). */
  retry?: number;
}

export interface Publisher {
  publish(update: Update): void;
  /** Ends subscriptions and pending deliveries. */
  close(): Promise<void>;
}
