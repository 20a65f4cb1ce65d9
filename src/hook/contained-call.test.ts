import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../store/open-store.js";
import type { Store } from "../store/store.js";
import { containedCall } from "./contained-call.js";

// A real SQLite store; the bound case runs end to end in test/sandbox/network-ask-hook.test.ts.
let dir: string;
let store: Store;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "docket-contained-call-"));
  store = await openStore(`sqlite:${join(dir, "docket.db")}`);
});
afterAll(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

describe("containedCall", () => {
  const approve = async () => true;

  it("ties nothing when the line names no call, or a call the store does not hold", async () => {
    const runtime = { store, networkApprover: approve };
    expect(await containedCall(runtime, {})).toMatchObject({ status: "unbound" });
    expect(await containedCall(runtime, { sessionId: "s1" })).toMatchObject({
      status: "unbound",
    });
    // A line written by hand cannot borrow a session's grants with a made-up call.
    const session = await store.createSession({ principal: "claude-code", configHash: "" });
    expect(
      await containedCall(runtime, { sessionId: session.id, callId: "toolu_made_up" }),
    ).toEqual({ status: "unbound", reason: `no call toolu_made_up in session ${session.id}` });
  });

  it("ties nothing when the store cannot be read", async () => {
    const closed = await openStore(`sqlite:${join(dir, "closed.db")}`);
    await closed.close();
    const bound = await containedCall(
      { store: closed, networkApprover: approve },
      { sessionId: "s1", callId: "c1" },
    );
    expect(bound.status).toBe("unbound");
  });
});
