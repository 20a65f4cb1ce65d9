import { scanSecrets } from "../src/index.js";
import { summarise, us } from "./stats.js";

/** A 4 KB tool result as tools return them: JSON rows of orders, ids, dates, notes. */
function result4kb(withKey: boolean): string {
  const rows: unknown[] = [];
  for (let i = 0; JSON.stringify(rows).length < 4000; i += 1) {
    rows.push({
      order_id: `SU-${88_000 + i}`,
      customer: `customer-${i}@example.com`,
      amount: 42.5 + i,
      status: i % 3 === 0 ? "shipped" : "pending",
      note: "Left at the front door; signed by the customer.",
      updated: `2026-12-0${(i % 9) + 1}T10:00:00Z`,
    });
  }
  const text = JSON.stringify(rows).slice(0, 4096);
  return withKey ? text.replace("Left at", "ghp_abcdefghijklmnopqrstuvwxyz0123456789 at") : text;
}

/**
 * What the checkpoint's secret scanner costs on a 4 KB result (target: under 50 µs), clean and
 * with one key to mask.
 */
export function benchSecretScan({ runs = 20_000, warmup = 2_000 } = {}): void {
  for (const withKey of [false, true]) {
    const text = result4kb(withKey);
    const expected = withKey ? "found" : "clean";
    for (let i = 0; i < warmup; i += 1) scanSecrets(text);
    const times = new Array<number>(runs);
    for (let i = 0; i < runs; i += 1) {
      const start = performance.now();
      const scan = scanSecrets(text);
      times[i] = performance.now() - start;
      if (scan.status !== expected) throw new Error(`expected ${expected}, got ${scan.status}`);
    }
    const stats = summarise(times);
    console.log(
      `  secret scan, ${Buffer.byteLength(text)} B result${withKey ? " with a key" : ", clean"}  median ${us(stats.medianUs)}  p99 ${us(stats.p99Us)} (target < 50 µs)`,
    );
  }
}
