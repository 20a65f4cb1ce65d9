import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openStore } from "../store/open-store.js";
import { createInboxFeed, type InboxChange } from "./inbox-feed.js";

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

describe("the inbox feed", () => {
  it("sends each subscriber what appeared and what left, newest last so it lands on top", async () => {
    const dir = await mkdtemp(join(tmpdir(), "docket-feed-"));
    const store = await openStore(`sqlite:${join(dir, "docket.db")}`);
    const feed = createInboxFeed(store, { intervalMs: 20 });
    cleanup = async () => {
      feed.close();
      await store.close();
      await rm(dir, { recursive: true, force: true });
    };
    const base = { tool: "t", canonicalArgs: "{}", argsHash: "h", requestedBy: "agent" };
    const one = await store.createApproval({ ...base, callId: "c1", createdAt: 1 });
    const seen: InboxChange[] = [];
    const stop = feed.subscribe([one.id, "apr_gone"], (change) => seen.push(change));
    await store.createApproval({ ...base, id: "apr_2", callId: "c2", createdAt: 2 });
    await store.createApproval({ ...base, id: "apr_3", callId: "c3", createdAt: 3 });
    await expect.poll(() => seen.filter((c) => c.type === "add").length).toBe(2);
    expect(seen.find((c) => c.type === "remove")).toMatchObject({ id: "apr_gone" });
    expect(
      seen.filter((c) => c.type === "add").map((c) => c.type === "add" && c.approval.id),
    ).toEqual(["apr_2", "apr_3"]);

    seen.length = 0;
    await store.decideApproval("apr_2", { decision: "approved", by: "bob" });
    feed.poke();
    await expect.poll(() => seen).toEqual([{ type: "remove", id: "apr_2", total: 2 }]);
    stop();
  });
});
