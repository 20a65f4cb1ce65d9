import type { Approval } from "../store/approval-record.js";
import type { Store } from "../store/store.js";

/** What changed on the inbox's first page since a subscriber last heard. */
export type InboxChange =
  | { readonly type: "add"; readonly approval: Approval; readonly total: number }
  | { readonly type: "remove"; readonly id: string; readonly total: number };

/** The live inbox: one poll of the store shared by every open inbox. */
export interface InboxFeed {
  /**
   * Follow the newest `pageSize` pending requests. `have` is what the subscriber shows now;
   * changes against it arrive through `listener`. Returns the unsubscribe function.
   */
  subscribe(have: readonly string[], listener: (change: InboxChange) => void): () => void;
  /** Look again now (after a decision made here), not at the next tick. */
  poke(): void;
  close(): void;
}

interface Subscriber {
  known: Set<string>;
  readonly listener: (change: InboxChange) => void;
}

/**
 * The inbox's live feed. While anyone follows, it reads the newest pending page every
 * `intervalMs` (default 500 ms; another process's decisions and requests reach SQLite only by
 * reading), and sends each subscriber what appeared and what left since it last looked.
 *
 * @example
 * ```ts
 * declare const store: import("../store/store.js").Store;
 * const feed = createInboxFeed(store);
 * const stop = feed.subscribe(["apr_1"], (change) => console.log(change.type));
 * ```
 */
export function createInboxFeed(
  store: Store,
  {
    pageSize = 50,
    intervalMs = 500,
    onError = () => undefined,
  }: { pageSize?: number; intervalMs?: number; onError?: (error: unknown) => void } = {},
): InboxFeed {
  const subscribers = new Set<Subscriber>();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let lastExpiry = 0;

  const look = async () => {
    if (Date.now() - lastExpiry > 5000) {
      lastExpiry = Date.now();
      await store.expireApprovals();
    }
    const page = await store.pageApprovals({ status: "pending", limit: pageSize });
    const ids = new Set(page.approvals.map((a) => a.id));
    for (const subscriber of subscribers) {
      for (const id of subscriber.known) {
        if (!ids.has(id)) subscriber.listener({ type: "remove", id, total: page.total });
      }
      // Oldest first, so that each new one goes on top and the newest ends up first.
      for (const approval of [...page.approvals].reverse()) {
        if (!subscriber.known.has(approval.id)) {
          subscriber.listener({ type: "add", approval, total: page.total });
        }
      }
      subscriber.known = new Set(ids);
    }
  };
  const tick = () => {
    if (running) {
      again = true;
      return;
    }
    running = look()
      .catch(onError)
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          tick();
        }
      });
  };
  const start = () => {
    if (!timer) {
      timer = setInterval(tick, intervalMs);
      timer.unref();
    }
  };
  const stop = () => {
    if (timer) clearInterval(timer);
    timer = undefined;
  };
  return {
    subscribe(have, listener) {
      const subscriber: Subscriber = { known: new Set(have), listener };
      subscribers.add(subscriber);
      start();
      tick();
      return () => {
        subscribers.delete(subscriber);
        if (subscribers.size === 0) stop();
      };
    },
    poke: () => {
      if (subscribers.size > 0) tick();
    },
    close() {
      subscribers.clear();
      stop();
    },
  };
}
