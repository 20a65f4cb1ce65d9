import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getRequestListener } from "@hono/node-server";
import { serveApprovals } from "../src/approval/approvals-http-server.js";
import { createApproverDirectory, hashToken } from "../src/approval/approver-directory.js";
import { createWebConsole } from "../src/console/create-web-console.js";
import { openStore } from "../src/store/open-store.js";
import type { StoreEvent } from "../src/store/store-event.js";
import { DECIDED, fillDecided, measureDecided } from "./console-decided.js";
import { summarise } from "./stats.js";

const CALLS = 100_000;
const PENDING = 1_000;
const SESSIONS = 100;
const ROUNDS = 40;
const TOKEN = "bench-approver-token";
const ARGS = '{"amount":42.5,"order_id":"SU-88421","reason":"arrived damaged, box crushed"}';

function callEvents(sessionId: string, callId: string, at: number): StoreEvent[] {
  const base = { callId, tool: "refund_order", sessionId, at };
  return [
    { ...base, type: "requested", principal: "agent", rawArguments: ARGS, rawBytes: ARGS.length },
    {
      ...base,
      type: "decided",
      decision: "allow",
      rule: "refunds-under-100",
      layer: "project",
      reason: "a small refund",
      explanation: undefined,
      args: JSON.parse(ARGS),
    },
    { ...base, type: "started", writes: true, timeoutMs: 30_000 },
    {
      ...base,
      type: "finished",
      status: "ok",
      reason: undefined,
      message: "refund_order succeeded.",
      durationMs: 0.42,
      outputBytes: 44,
      output: '{"refund_id":"rf_8842100","status":"queued"}',
    },
  ];
}

/** Milliseconds from sending a GET to its first byte (status line and headers) arriving. */
function firstByte(url: string, cookie: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(url, { headers: { cookie } }, (res) => {
      const ms = performance.now() - started;
      res.resume();
      res.on("end", () => resolve(ms));
    });
    req.on("error", reject);
    req.end();
  });
}

/** Milliseconds from opening the event stream to its first `add` event for the empty inbox. */
function firstEvent(url: string, cookie: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(url, { headers: { cookie, accept: "text/event-stream" } }, (res) => {
      res.on("data", (chunk: Buffer) => {
        if (chunk.toString("utf8").includes("event: add")) {
          resolve(performance.now() - started);
          req.destroy();
        }
      });
    });
    req.on("error", (error) => (req.destroyed ? undefined : reject(error)));
    req.end();
  });
}

/**
 * The console's pages and event stream with 1,000 pending requests, 100,000 decided ones and
 * 100,000 audited calls in a SQLite store: time to first byte of the inbox (target under
 * 100 ms), the decided view with each filter (target under 200 ms), the sessions list, a
 * session page, and the event stream's first event.
 *
 * @example
 * ```ts
 * await benchConsole(); // npm run bench console
 * ```
 */
export async function benchConsole(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "docket-bench-console-"));
  const store = await openStore(`sqlite:${join(dir, "docket.db")}`);
  try {
    const directory = createApproverDirectory(
      { bob: { roles: ["lead"], token_sha256: hashToken(TOKEN) } },
      {},
    );
    const sessions: string[] = [];
    for (let s = 0; s < SESSIONS; s += 1) {
      sessions.push((await store.createSession({ principal: "agent", configHash: "bench" })).id);
    }
    const at = Date.now();
    let batch: StoreEvent[] = [];
    for (let i = 0; i < CALLS; i += 1) {
      batch.push(...callEvents(sessions[i % SESSIONS] ?? "", `call_${i}`, at + i));
      if (batch.length >= 4000) {
        await store.emitMany(batch);
        batch = [];
      }
    }
    if (batch.length > 0) await store.emitMany(batch);
    for (let i = 0; i < PENDING; i += 1) {
      await store.createApproval({
        sessionId: sessions[i % SESSIONS],
        callId: `ask_${i}`,
        tool: i % 2 ? "write_file" : "issue_refund",
        canonicalArgs: i % 2 ? `{"content":"line\\n","path":"notes/${i}.md"}` : ARGS,
        argsHash: hashToken(String(i)),
        requestedBy: "agent",
        rule: "default:writes",
        reason: "a write needs a human",
        approvers: ["role:lead"],
        createdAt: at + i,
      });
    }
    const filling = performance.now();
    await fillDecided(store, sessions, at);
    const filled = ((performance.now() - filling) / 1000).toFixed(1);
    const web = createWebConsole({ store, directory, where: { project: "docket.yaml" } });
    const api = await serveApprovals({
      store,
      directory,
      fallback: getRequestListener(web.fetch, { overrideGlobalObjects: false }),
    });
    try {
      const signIn = await fetch(`${api.url}/console/sign-in`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", origin: api.url },
        body: `token=${TOKEN}`,
      });
      const cookie = (signIn.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
      const pages: [string, string][] = [
        ["inbox (50 newest of 1,000 pending)", "/console/"],
        ["sessions list (100)", "/console/sessions"],
        [`session page (${CALLS / SESSIONS} calls)`, `/console/sessions/${sessions[0]}`],
      ];
      console.log(
        `console: ${CALLS.toLocaleString("en-US")} audited calls, ${PENDING.toLocaleString("en-US")} pending and ${DECIDED.toLocaleString("en-US")} decided requests (filled through the store in ${filled} s), SQLite`,
      );
      for (const [name, path] of pages) {
        await firstByte(`${api.url}${path}`, cookie);
        const times: number[] = [];
        const rounds = path.includes("/sessions/") ? 5 : ROUNDS;
        for (let i = 0; i < rounds; i += 1)
          times.push(await firstByte(`${api.url}${path}`, cookie));
        const t = summarise(times);
        const target =
          path === "/console/"
            ? ` (target < 100 ms: ${t.medianUs / 1000 < 100 ? "met" : "MISSED"})`
            : "";
        console.log(
          `  ${name}: time to first byte median ${(t.medianUs / 1000).toFixed(1)} ms, p99 ${(t.p99Us / 1000).toFixed(1)} ms${target}`,
        );
      }
      await measureDecided(api.url, cookie);
      const events: number[] = [];
      for (let i = 0; i < 10; i += 1)
        events.push(await firstEvent(`${api.url}/console/events?have=`, cookie));
      const e = summarise(events);
      console.log(
        `  event stream: first "add" after median ${(e.medianUs / 1000).toFixed(1)} ms, p99 ${(e.p99Us / 1000).toFixed(1)} ms`,
      );
    } finally {
      web.close();
      api.server.closeAllConnections();
      await api.close();
    }
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
