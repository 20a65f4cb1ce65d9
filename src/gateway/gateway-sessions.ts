/** What the session table needs of a session: a way to close it. */
export interface ClosableSession {
  close(): void;
}

interface Entry<S> {
  readonly session: S;
  /** POST requests being answered (a GET event stream does not make a session busy). */
  busy: number;
  lastActive: number;
}

/** Settings of the HTTP gateway's session table. */
export interface GatewaySessionLimits {
  /** Sessions kept at once; a new client past it is refused at connect. */
  readonly maxSessions: number;
  /** A session with no request in flight for this long is closed. 0: never. */
  readonly idleTimeoutMs: number;
  readonly now?: () => number;
}

/** Why a session id is not in the table. */
export type MissingSession = "unknown" | "closed_idle";

/**
 * The HTTP gateway's sessions, with admission rather than eviction: past the cap a new client is
 * refused (the caller answers 503 with Retry-After), a session with a request in flight is never
 * closed, and an idle one is closed only after the idle timeout. Ids closed for idleness are
 * remembered (bounded) so their client is told why.
 *
 * @example
 * ```ts
 * declare const session: ClosableSession;
 * const table = new GatewaySessions<ClosableSession>({ maxSessions: 64, idleTimeoutMs: 600_000 });
 * if (table.hasRoom()) table.add("a1b2", session); // else answer 503 with Retry-After
 * ```
 */
export class GatewaySessions<S extends ClosableSession> {
  readonly #entries = new Map<string, Entry<S>>();
  readonly #closedIdle = new Set<string>();
  readonly #limits: GatewaySessionLimits;
  readonly #now: () => number;
  readonly #sweeper: NodeJS.Timeout | undefined;

  constructor(limits: GatewaySessionLimits) {
    this.#limits = limits;
    this.#now = limits.now ?? Date.now;
    if (limits.idleTimeoutMs > 0) {
      const every = Math.max(50, Math.min(limits.idleTimeoutMs / 4, 30_000));
      this.#sweeper = setInterval(() => this.closeIdle(), every);
      this.#sweeper.unref();
    }
  }

  get size(): number {
    return this.#entries.size;
  }

  hasRoom(): boolean {
    return this.#entries.size < this.#limits.maxSessions;
  }

  add(id: string, session: S): void {
    this.#entries.set(id, { session, busy: 0, lastActive: this.#now() });
  }

  get(id: string): S | undefined {
    return this.#entries.get(id)?.session;
  }

  /** Why `id` has no session: never known, or closed for idleness. */
  missing(id: string): MissingSession {
    return this.#closedIdle.has(id) ? "closed_idle" : "unknown";
  }

  /** A request of `id` started; call the returned function when it is answered. */
  begin(id: string): () => void {
    const entry = this.#entries.get(id);
    if (entry === undefined) return () => {};
    entry.busy += 1;
    entry.lastActive = this.#now();
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      entry.busy -= 1;
      entry.lastActive = this.#now();
    };
  }

  /** Forget `id` (its transport closed) and close it. */
  remove(id: string): void {
    const entry = this.#entries.get(id);
    if (entry === undefined) return;
    this.#entries.delete(id);
    entry.session.close();
  }

  /** Close every session idle past the timeout; returns how many were closed. */
  closeIdle(): number {
    const cutoff = this.#now() - this.#limits.idleTimeoutMs;
    let closed = 0;
    for (const [id, entry] of this.#entries) {
      if (entry.busy > 0 || entry.lastActive > cutoff) continue;
      this.remove(id);
      this.#closedIdle.add(id);
      closed += 1;
    }
    // Bounded: only the latest closures are remembered.
    const keep = this.#limits.maxSessions * 4;
    for (const id of this.#closedIdle) {
      if (this.#closedIdle.size <= keep) break;
      this.#closedIdle.delete(id);
    }
    return closed;
  }

  /** Every session's close, for shutdown; ids in the order they were added. */
  closeAll(): void {
    if (this.#sweeper !== undefined) clearInterval(this.#sweeper);
    for (const id of [...this.#entries.keys()]) this.remove(id);
  }
}
