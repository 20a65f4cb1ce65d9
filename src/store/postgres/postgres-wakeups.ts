import type pg from "pg";
import { type ApprovalWatch, waitFor } from "../approval-watch.js";
import { boundedConnection, type PostgresBounds } from "./bounded-client.js";
import { loadPg } from "./load-pg.js";

/** The channel a decided approval is announced on; the payload is its id. */
export const APPROVAL_CHANNEL = "docket_approval_decided";

interface Interest {
  dirty: boolean;
  wake: (() => void) | undefined;
}

/**
 * One LISTEN connection per store, opened on the first watch, beside the pool: a decision made
 * by any process on the database (`pg_notify` after the decision commits) wakes the runs waiting
 * for it at once instead of at their next poll. A lost connection wakes every watcher (they read
 * again, so nothing is missed) and is opened again by the next watch; its errors are handled
 * here, never thrown at the process.
 *
 * @example
 * ```ts
 * const connectionString = "postgres://docket@db.internal/docket";
 * const signal = AbortSignal.timeout(60_000); // the run's
 * const wakeups = new PostgresWakeups(connectionString, {
 *   connectTimeoutMs: 10_000,
 *   queryTimeoutMs: 60_000,
 * });
 * const watch = await wakeups.watch("apr_1");
 * await watch.next(500, signal);
 * ```
 */
export class PostgresWakeups {
  private client: Promise<pg.Client> | undefined;
  private readonly interests = new Map<string, Set<Interest>>();
  private closed = false;

  /**
   * `bounds`: the store URL's timeouts, so that a database gone silent fails the LISTEN
   * connection (its watches then poll) instead of holding a watch for ever.
   */
  constructor(
    private readonly connectionString: string,
    private readonly bounds: PostgresBounds,
  ) {}

  async watch(approvalId: string): Promise<ApprovalWatch> {
    const interest: Interest = { dirty: false, wake: undefined };
    const set = this.interests.get(approvalId) ?? new Set<Interest>();
    set.add(interest);
    this.interests.set(approvalId, set);
    let wakes = true;
    try {
      await this.listening();
    } catch {
      // No LISTEN connection (the database is away): fall back to polling for this watch.
      wakes = false;
    }
    return {
      wakes,
      next: (timeoutMs, signal) => {
        if (interest.dirty) {
          interest.dirty = false;
          return Promise.resolve();
        }
        const woken = new Promise<void>((resolve) => {
          interest.wake = resolve;
        });
        return waitFor(woken, timeoutMs, signal).finally(() => {
          interest.wake = undefined;
          interest.dirty = false;
        });
      },
      close: () => {
        set.delete(interest);
        if (set.size === 0 && this.interests.get(approvalId) === set) {
          this.interests.delete(approvalId);
        }
        // Nobody waits: let the connection go, so that it never holds the process open.
        if (this.interests.size === 0) this.disconnect();
      },
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = undefined;
    this.wakeAll();
    const connected = await client?.catch(() => undefined);
    await connected?.end().catch(() => undefined);
  }

  private listening(): Promise<pg.Client> {
    if (this.closed) return Promise.reject(new Error("closed"));
    this.client ??= (async () => {
      const client = boundedConnection(
        await loadPg(),
        { connectionString: this.connectionString, application_name: "docket-wakeups" },
        this.bounds,
      );
      const lost = () => {
        if (this.client === connecting) this.client = undefined;
        this.wakeAll();
        void client.end().catch(() => undefined);
      };
      client.on("error", lost);
      client.on("end", lost);
      client.on("notification", (message) => this.notify(message.payload ?? ""));
      try {
        await client.connect();
        await client.query(`LISTEN ${APPROVAL_CHANNEL}`);
      } catch (error) {
        lost();
        throw error;
      }
      // Queries run before LISTEN could have missed a decision: every watcher reads again.
      this.wakeAll();
      return client;
    })();
    const connecting = this.client;
    return connecting;
  }

  private disconnect(): void {
    const client = this.client;
    this.client = undefined;
    void client?.then((c) => c.end()).catch(() => undefined);
  }

  private notify(approvalId: string): void {
    for (const interest of this.interests.get(approvalId) ?? []) wakeOne(interest);
  }

  private wakeAll(): void {
    for (const set of this.interests.values()) for (const interest of set) wakeOne(interest);
  }
}

function wakeOne(interest: Interest): void {
  if (interest.wake) interest.wake();
  else interest.dirty = true;
}
