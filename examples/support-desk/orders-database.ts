import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";

// Node's own SQLite (Node 22.13+): the demo's orders need no package. Typed here by what is used.
interface Statement {
  run(...values: (string | number)[]): unknown;
  get(...values: (string | number)[]): unknown;
}
const { DatabaseSync } = createRequire(import.meta.url)("node:sqlite") as {
  DatabaseSync: new (
    path: string,
  ) => { exec(sql: string): void; prepare(sql: string): Statement; close(): void };
};

/** An order as the support desk sees it. */
export interface Order {
  readonly id: string;
  readonly customer: string;
  readonly item: string;
  readonly totalUsd: number;
  readonly status: string;
  readonly refundedUsd: number;
}

/** The carrier's scans of a parcel, oldest first: what makes an order's record long. */
export type TrackingScan = string;

const HUBS = ["Portland OR", "Salem OR", "Eugene OR", "Medford OR", "Redding CA", "Sacramento CA"];

/**
 * The parcel's scan history: a long list for an order on its way (every hub scans it twice), a
 * short one otherwise. Derived from the order, so every demo tells the same story.
 *
 * @example
 * ```ts
 * trackingOf({ id: "SU-88421", status: "shipped", ... }).length; // 36
 * ```
 */
export function trackingOf(order: Order): TrackingScan[] {
  const scans = order.status === "processing" ? 0 : order.status === "shipped" ? 36 : 4;
  return Array.from({ length: scans }, (_, i) => {
    const day = String(2 + Math.floor(i / 6)).padStart(2, "0");
    const time = `${String(6 + (i % 6) * 2).padStart(2, "0")}:${String((i * 17) % 60).padStart(2, "0")}`;
    const hub = HUBS[Math.floor(i / 2) % HUBS.length];
    return `2026-11-${day} ${time} ${i % 2 === 0 ? "arrived at" : "departed"} ${hub} sorting centre`;
  });
}

/** A small SQLite database of orders, seeded on first open. */
export interface OrdersDatabase {
  find(orderId: string): Order | undefined;
  /** Record a refund; returns the order as it is afterwards. */
  refund(orderId: string, amountUsd: number): Order;
  close(): void;
}

const SEED: readonly Order[] = [
  {
    id: "SU-88421",
    customer: "Ada Byron",
    item: "Walnut standing desk",
    totalUsd: 649,
    status: "shipped",
    refundedUsd: 0,
  },
  {
    id: "SU-88422",
    customer: "Grace Hopper",
    item: "Desk lamp",
    totalUsd: 89,
    status: "delivered",
    refundedUsd: 0,
  },
  {
    id: "SU-88423",
    customer: "Alan Turing",
    item: "Monitor arm",
    totalUsd: 129,
    status: "processing",
    refundedUsd: 0,
  },
];

/**
 * Open (and seed, if new) the orders database at `path`.
 *
 * @example
 * ```ts
 * const orders = openOrdersDatabase(".docket/demo-orders.db");
 * orders.find("SU-88421")?.status; // "shipped"
 * ```
 */
export function openOrdersDatabase(path: string): OrdersDatabase {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const db = new DatabaseSync(path);
  db.exec("PRAGMA journal_mode = WAL");
  db.exec(`CREATE TABLE IF NOT EXISTS orders (
    id TEXT PRIMARY KEY, customer TEXT NOT NULL, item TEXT NOT NULL,
    total_usd REAL NOT NULL, status TEXT NOT NULL, refunded_usd REAL NOT NULL DEFAULT 0)`);
  const insert = db.prepare(
    "INSERT OR IGNORE INTO orders (id, customer, item, total_usd, status, refunded_usd) VALUES (?, ?, ?, ?, ?, ?)",
  );
  for (const o of SEED) insert.run(o.id, o.customer, o.item, o.totalUsd, o.status, o.refundedUsd);
  const select = db.prepare(
    "SELECT id, customer, item, total_usd AS totalUsd, status, refunded_usd AS refundedUsd FROM orders WHERE id = ?",
  );
  const addRefund = db.prepare("UPDATE orders SET refunded_usd = refunded_usd + ? WHERE id = ?");
  const find = (orderId: string) => select.get(orderId) as Order | undefined;
  return {
    find,
    refund(orderId, amountUsd) {
      // One transaction: the check and the update see the same row.
      db.exec("BEGIN IMMEDIATE");
      try {
        const order = find(orderId);
        if (!order) throw new Error(`there is no order ${orderId}`);
        if (order.refundedUsd + amountUsd > order.totalUsd) {
          throw new Error(
            `a refund of ${amountUsd} USD would exceed what is left on order ${orderId} (${order.totalUsd - order.refundedUsd} USD)`,
          );
        }
        addRefund.run(amountUsd, orderId);
        db.exec("COMMIT");
        return find(orderId) as Order;
      } catch (error) {
        db.exec("ROLLBACK");
        throw error;
      }
    },
    close: () => db.close(),
  };
}
