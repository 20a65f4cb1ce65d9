import { request } from "node:http";
import { hashToken } from "../src/approval/approver-directory.js";
import type { Store } from "../src/store/store.js";
import { summarise } from "./stats.js";

/** How many decided requests the decided view's figure is taken over (issue 39's target). */
export const DECIDED = 100_000;
const TOOLS = ["issue_refund", "write_file", "run_command", "fetch_url", "escalate_to_human"];
const APPROVERS = ["bob", "dave", "erin"];
const ROUNDS = 30;
const TARGET_MS = 200;

/**
 * Fill the store with `DECIDED` requests through the store's own API, each created then
 * decided (approved, denied or expired by time), spread over five tools, three approvers and
 * 100 days, so that every filter has something to narrow.
 *
 * @example
 * ```ts
 * await fillDecided(store, sessions, Date.now());
 * ```
 */
export async function fillDecided(store: Store, sessions: readonly string[], at: number) {
  const start = at - 100 * 86_400_000;
  for (let i = 0; i < DECIDED; i += 1) {
    const tool = TOOLS[i % TOOLS.length] ?? "issue_refund";
    const createdAt = start + i * 86_400;
    const approval = await store.createApproval({
      id: `apr_d${String(i).padStart(6, "0")}`,
      sessionId: sessions[i % sessions.length],
      callId: `decided_${i}`,
      tool,
      canonicalArgs: `{"amount":${i % 400},"order_id":"SU-${10_000 + i}","reason":"damaged"}`,
      argsHash: hashToken(`d${i}`),
      requestedBy: i % 7 === 0 ? "ops-bot" : "agent",
      rule: "default:writes",
      reason: "a write needs a human",
      createdAt,
      ...(i % 11 === 0 ? { expiresAt: createdAt + 60_000 } : {}),
    });
    if (i % 11 === 0) continue;
    await store.decideApproval(approval.id, {
      decision: i % 3 === 0 ? "denied" : "approved",
      by: APPROVERS[i % APPROVERS.length] ?? "bob",
      at: createdAt + 30_000,
      ...(i % 3 === 0 ? { reason: "needs the order's photos first" } : {}),
    });
  }
  await store.expireApprovals(at);
}

function firstByte(url: string, cookie: string): Promise<{ ms: number; status: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(url, { headers: { cookie } }, (res) => {
      const ms = performance.now() - started;
      res.resume();
      res.on("end", () => resolve({ ms, status: res.statusCode ?? 0 }));
    });
    req.on("error", reject);
    req.end();
  });
}

/**
 * Time to first byte of the decided view over HTTP, unfiltered and with each kind of filter,
 * against the target of 200 ms. Prints one line per query; a query that does not answer 200
 * stops the benchmark (a figure of an error page would be a lie).
 *
 * @example
 * ```ts
 * await measureDecided(api.url, cookie);
 * ```
 */
export async function measureDecided(base: string, cookie: string): Promise<boolean> {
  const day = new Date(Date.now() - 50 * 86_400_000).toISOString().slice(0, 10);
  const queries: [string, string][] = [
    ["no filter", ""],
    ["tool", "tool=run_command"],
    ["decision", "decision=denied"],
    ["principal", "principal=ops-bot"],
    ["approver", "approver=erin"],
    ["time (one day)", `from=${day}&to=${day}`],
    ["search", "q=SU-5432"],
    ["all filters + search", `tool=issue_refund&decision=approved&approver=dave&from=${day}&q=SU-`],
    ["page 2 of a filter", ""],
  ];
  console.log(`  decided view (${DECIDED.toLocaleString("en-US")} decided requests):`);
  let met = true;
  let second = "";
  for (const [name, query] of queries) {
    let path = `/console/decided?${query}`;
    if (name === "page 2 of a filter") {
      if (!second) continue;
      path = second;
    }
    const warm = await firstByte(`${base}${path}`, cookie);
    if (warm.status !== 200) throw new Error(`${path} answered ${warm.status}`);
    if (name === "tool") {
      const html = await (await fetch(`${base}${path}`, { headers: { cookie } })).text();
      const next = /href="(\/console\/decided\?[^"]*cursor=[^"]*)" rel="next"/.exec(html)?.[1];
      second = next?.replaceAll("&amp;", "&") ?? "";
    }
    const times: number[] = [];
    for (let i = 0; i < ROUNDS; i += 1) times.push((await firstByte(`${base}${path}`, cookie)).ms);
    const t = summarise(times);
    const median = t.medianUs / 1000;
    met &&= median < TARGET_MS;
    console.log(
      `    ${name}: time to first byte median ${median.toFixed(1)} ms, p99 ${(t.p99Us / 1000).toFixed(1)} ms (target < ${TARGET_MS} ms: ${median < TARGET_MS ? "met" : "MISSED"})`,
    );
  }
  return met;
}
