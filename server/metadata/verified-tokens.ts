/**
 * Tokens already verified, remembered by their exact text so that a client sending the same token on
 * every request pays the signature check once (about a third of a guarded request's cost otherwise,
 * npm run bench). Sound because the answer depends only on the token text, the keys and the clock:
 * - the keys are fixed for the verifier's life (read at load; a reload makes a new verifier and a new
 *   memory), so nothing remembered outlives a key change;
 * - the clock is checked again on every hit: `exp` and `nbf` with the same leeway as the full check,
 *   an entry past its window is dropped and the token verified in full (which rejects it);
 * - only verified tokens are remembered (an invalid one is checked in full every time), at most
 *   `capacity` of them, least recently used first out, and none longer than MAX_TOKEN_LENGTH.
 * A hit gives a fresh copy of the payload, so a request that changes its user's claims changes no other's.
 */

/** Bounds the memory held (capacity × this); longer tokens are verified in full every time. */
const MAX_TOKEN_LENGTH = 4096;

interface Entry {
  payloadJson: string;
  nbf: number | undefined;
  exp: number | undefined;
}

export class VerifiedTokens {
  private readonly entries = new Map<string, Entry>();

  /** `leeway`: the seconds of clock tolerance of the full check. */
  constructor(
    private readonly leeway: number,
    private readonly capacity = 1000,
  ) {}

  /** The payload of a remembered token still within its time window, else undefined. */
  payloadOf(token: string, now = Math.floor(Date.now() / 1000)): Record<string, unknown> | undefined {
    const entry = this.entries.get(token);
    if (!entry) return undefined;
    this.entries.delete(token);
    // The same comparisons as jose's claims check (exp: expired at `exp`; nbf: valid from `nbf`).
    if (entry.exp !== undefined && entry.exp <= now - this.leeway) return undefined;
    if (entry.nbf !== undefined && entry.nbf > now + this.leeway) return undefined;
    this.entries.set(token, entry); // now the most recently used
    return JSON.parse(entry.payloadJson) as Record<string, unknown>;
  }

  /** Remembers a token the full check has just accepted, with its payload. */
  remember(token: string, payload: Record<string, unknown>): void {
    if (token.length > MAX_TOKEN_LENGTH) return;
    const time = (claim: unknown): number | undefined => (typeof claim === 'number' ? claim : undefined);
    this.entries.delete(token);
    this.entries.set(token, { payloadJson: JSON.stringify(payload), nbf: time(payload.nbf), exp: time(payload.exp) });
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }

  get size(): number {
    return this.entries.size;
  }
}
