import { createServer, type Server, type Socket } from "node:net";
import pg from "pg";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { verifyStoreTrail } from "../../src/audit/verify-store-trail.js";
import { createCheckpoint } from "../../src/checkpoint/create-checkpoint.js";
import { isDocketError } from "../../src/errors/docket-error.js";
import { openStore } from "../../src/store/open-store.js";
import type { Store } from "../../src/store/store.js";
import { defineTool } from "../../src/tool/define-tool.js";
import {
  dropTestSchemas,
  freshPostgresUrl,
  postgresUrl,
  skipPostgres,
} from "../support/postgres.js";
import { type CutPoint, type CuttingProxy, cuttingProxy } from "./support/cutting-proxy.js";

// ADR 0105: on PostgreSQL a write's claim and intent are queued and commit with the steps queued
// before them, under the queue's commit keys. A connection lost in that commit leaves it in
// doubt; the call is refused and never runs whether or not the commit happened, and the trail
// is the same refused call's either way, each event once. A PostgreSQL that stops answering
// without a reset (a network that drops packets, a host that froze) fails what needs it within
// the store URL's bounds, in words, instead of holding it for ever.

const stores: Store[] = [];
const proxies: CuttingProxy[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close().catch(() => undefined);
  for (const proxy of proxies.splice(0)) await proxy.close();
});
afterAll(dropTestSchemas);

/** The claim and intent commit of call `callId`: the append's write and its COMMIT. */
const claimCommitOf = (callId: string) => (query: string) =>
  query.includes(`"callId":"${callId}"`) &&
  query.includes('"type":"started"') &&
  /COMMIT\s*$/.test(query);

/** A store on `url` through a proxy that can cut it, both closed after the test. */
async function throughProxy(url: string, params: string) {
  const proxy = await cuttingProxy(postgresUrl as string);
  proxies.push(proxy);
  const store = await openStore(`${proxy.through(url)}${params}`);
  stores.push(store);
  return { proxy, store };
}

/** A session, a write tool that counts its runs, and a checkpoint that ran it once (w0). */
async function writing(store: Store) {
  const session = await store.createSession({ principal: "agent", configHash: "" });
  const ran: string[] = [];
  const write = defineTool({
    name: "write_note",
    description: "Writes a note.",
    input: z.object({ n: z.number() }),
    writes: true,
    handler: ({ n }, ctx) => {
      ran.push(ctx.callId);
      return n;
    },
  });
  const checkpoint = createCheckpoint({
    tools: [write],
    store,
    policy: () => ({ decision: "allow" }),
  });
  const ctx = { sessionId: session.id };
  const call = (id: string) => ({ id, name: "write_note", arguments: '{"n":1}' });
  expect((await checkpoint.dispatch(call("w0"), ctx)).status).toBe("ok");
  return { session, ran, checkpoint, ctx, call };
}

describe.skipIf(skipPostgres)("a write's claim and intent commit in doubt (PostgreSQL)", () => {
  it.each([
    ["after", "committed after all", ["requested", "decided", "started", "refused"]],
    ["before", "never reached the server", ["requested", "decided", "refused"]],
    // The network falls silent instead: no reset, no answer. The store's query timeout ends
    // the wait, and the call is refused as when the connection drops.
    ["silent-after", "committed after all", ["requested", "decided", "started", "refused"]],
    ["silent-before", "never reached the server", ["requested", "decided", "refused"]],
  ] as const)(
    "cut %s the COMMIT (%s): the call does not run, its refusal closes it, each event once, verify passes, and its id is refused again",
    async (point: CutPoint, _what, trail) => {
      const { proxy, store } = await throughProxy(freshPostgresUrl(), "&query_timeout=1500");
      const { session, ran, checkpoint, ctx, call } = await writing(store);

      proxy.cutAt(claimCommitOf("wd"), point);
      const cut = await checkpoint.dispatch(call("wd"), ctx);
      expect(proxy.cuts()).toBe(1);
      expect(cut).toMatchObject({ status: "refused", reason: "audit_failed" });
      expect(ran).toEqual(["w0"]);

      const events = await store.listEvents({ sessionId: session.id });
      const keys = events.map((e) => `${e.callId} ${e.type}`);
      expect(new Set(keys).size, keys.join(", ")).toBe(keys.length);
      const ofCut = events.filter((e) => e.callId === "wd");
      expect(ofCut.map((e) => e.type)).toEqual(trail);
      // The refusal of the intent whose commit failed closes the call, committed or not.
      expect(ofCut.at(-1)?.event).toMatchObject({ type: "refused", intentFailed: true });
      const [row] = await store.listCalls({ sessionId: session.id, callId: "wd" });
      expect(row).toMatchObject({ state: "finished", status: "refused" });
      expect(await store.listInterrupted()).toEqual([]);
      expect((await store.verifyChain(session.id)).ok).toBe(true);
      // What `docket audit verify` checks: the chain, and the calls rows folded from it again.
      expect((await verifyStoreTrail(store, { sessionId: session.id })).problems).toEqual([]);

      // The same id again: refused as before, with that refusal's words, and never run.
      const again = await checkpoint.dispatch(call("wd"), ctx);
      expect(again).toMatchObject({ status: "refused", reason: "audit_failed" });
      expect(again.message).toMatch(/^This call \(wd\) was refused earlier and is not run again: /);
      // A new write goes on as before: its claim carries nothing of the refused call.
      expect((await checkpoint.dispatch(call("w1"), ctx)).status).toBe("ok");
      expect(ran).toEqual(["w0", "w1"]);
      // The second dispatch's own steps, then the new write's: nothing of the cut commit again.
      const after = await store.listEvents({ sessionId: session.id });
      expect(after.slice(events.length).map((e) => `${e.callId} ${e.type}`)).toEqual([
        "wd requested",
        "wd decided",
        "wd refused",
        ...["requested", "decided", "started", "finished"].map((type) => `w1 ${type}`),
      ]);
      expect((await verifyStoreTrail(store, { sessionId: session.id })).problems).toEqual([]);
    },
  );
});

describe.skipIf(skipPostgres)("a PostgreSQL that stops answering", () => {
  it("a claim commit that is slow, not lost, cannot land once its doubt is settled: each event once", async () => {
    const url = freshPostgresUrl();
    const schema = new URL(url).searchParams.get("schema") as string;
    const store = await openStore(`${url}&query_timeout=1500`);
    stores.push(store);
    const { session, ran, checkpoint, ctx, call } = await writing(store);
    // Another session's lock (a DBA's, a long report's) makes the claim's statement wait: the
    // server keeps it running after docket stops waiting.
    const other = new pg.Client({ connectionString: postgresUrl });
    await other.connect();
    try {
      await other.query(`BEGIN; LOCK TABLE "${schema}".chain_heads IN SHARE MODE`);
      const slow = await checkpoint.dispatch(call("wd"), ctx);
      expect(slow).toMatchObject({ status: "refused", reason: "audit_failed" });
      const next = checkpoint.dispatch(call("w1"), ctx);
      await new Promise((resolve) => setTimeout(resolve, 400));
      await other.query("ROLLBACK");
      expect((await next).status).toBe("ok");
    } finally {
      await other.end();
    }
    expect(ran).toEqual(["w0", "w1"]);
    const events = await store.listEvents({ sessionId: session.id });
    const keys = events.map((e) => `${e.callId} ${e.type}`);
    expect(new Set(keys).size, keys.join(", ")).toBe(keys.length);
    expect(keys.filter((key) => key.startsWith("wd "))).toEqual([
      "wd requested",
      "wd decided",
      "wd refused",
    ]);
    expect((await verifyStoreTrail(store, { sessionId: session.id })).problems).toEqual([]);
  }, 60_000);

  it("a read with no answer fails after query_timeout, saying so; the next read answers", async () => {
    const { proxy, store } = await throughProxy(freshPostgresUrl(), "&query_timeout=800");
    const session = await store.createSession({ principal: "agent", configHash: "" });
    proxy.cutAt((query) => query.includes("FROM audit_events"), "silent-before");
    const started = performance.now();
    const failed = await store.listEvents({ sessionId: session.id }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(proxy.cuts()).toBe(1);
    expect(isDocketError(failed, "store_timeout")).toBe(true);
    expect((failed as Error).message).toBe(
      "PostgreSQL did not answer within 800 ms (the store URL's query_timeout), so docket stopped waiting: the database or the network to it is not answering.",
    );
    // Not before its time: the statement was given its 800 ms.
    expect(performance.now() - started).toBeGreaterThanOrEqual(790);
    // The silent connection is dropped, not handed out again: the next read answers.
    expect(await store.listEvents({ sessionId: session.id })).toEqual([]);
    expect(await store.getSession(session.id)).toMatchObject({ id: session.id });
  }, 30_000);

  it("opening a store whose schema is current waits on no migration lock, only its bounded reads", async () => {
    const url = freshPostgresUrl();
    await (await openStore(url)).close(); // migrated
    // A lock nobody would ever give back, were the open to ask for it.
    const proxy = await cuttingProxy(postgresUrl as string);
    proxies.push(proxy);
    proxy.cutAt((query) => query.includes("docket.migrate"), "silent-before");
    const store = await openStore(`${proxy.through(url)}&query_timeout=800`);
    stores.push(store);
    expect(proxy.cuts()).toBe(0);
    expect(await store.listEvents({})).toEqual([]);
  }, 30_000);

  it("an approval watch whose LISTEN gets no answer polls instead of waiting for ever", async () => {
    const { proxy, store } = await throughProxy(freshPostgresUrl(), "&query_timeout=800");
    proxy.cutAt((query) => query.startsWith("LISTEN"), "silent-before");
    const watch = await store.watchApproval("apr_silent");
    expect(proxy.cuts()).toBe(1);
    expect(watch.wakes).toBe(false);
    // Its waits end by their interval (the caller then reads the approval again).
    await watch.next(30);
    watch.close();
  }, 30_000);

  it("a server that accepts and never answers fails the open after connect_timeout, saying so", async () => {
    const held = new Set<Socket>();
    const mute: Server = createServer((socket) => {
      held.add(socket);
    });
    await new Promise<void>((resolve) => mute.listen(0, "127.0.0.1", resolve));
    const port = (mute.address() as { port: number }).port;
    try {
      const failed = await openStore(
        `postgres://docket:secret@127.0.0.1:${port}/docket?connect_timeout=1`,
      ).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(isDocketError(failed, "store_timeout")).toBe(true);
      expect((failed as Error).message).toContain(
        "PostgreSQL gave docket no connection within 1000 ms (the store URL's connect_timeout)",
      );
      expect(String(failed)).not.toContain("secret");
    } finally {
      for (const socket of held) socket.destroy();
      mute.close();
    }
  }, 30_000);
});
