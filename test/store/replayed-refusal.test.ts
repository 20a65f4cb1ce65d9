import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createCheckpoint } from "../../src/checkpoint/create-checkpoint.js";
import { canonicalJson } from "../../src/shared/canonical-json.js";
import { defineTool } from "../../src/tool/define-tool.js";
import { tempStore } from "../loop/support/temp-store.js";
import { callEvents } from "./support/call-events.js";

// Found by the soak (issue 23): a write refused at its intent while PostgreSQL was away
// (`audit_failed`), whose batch was not saved before its runner died, was dispatched again on
// resume and answered "already received in this session … Give every call its own id": the
// model was told its id was at fault, and why the call did not run was lost.

describe("a call id refused earlier, dispatched again", () => {
  it("gets the earlier refusal's reason and words, and never runs", async () => {
    const { store } = await tempStore();
    const session = await store.createSession({ principal: "agent", configHash: "" });
    // The intent's refusal follows the id's claim, which carries the call's arguments hash.
    const args = { order_id: "SU-88421", amount: 42.5 };
    const argsHash = createHash("sha256").update(canonicalJson(args)).digest("hex");
    await store.claimCall(session.id, "c1", { tool: "note", writes: true, argsHash });
    await store.emitMany(
      callEvents({ sessionId: session.id, callId: "c1", tool: "note", outcome: "refused" }),
    );
    const runs: string[] = [];
    const note = defineTool({
      name: "note",
      description: "Write a note.",
      input: z.object({ order_id: z.string(), amount: z.number() }),
      writes: true,
      handler: () => {
        runs.push("note");
        return { ok: true };
      },
    });
    const checkpoint = createCheckpoint({
      tools: [note],
      store,
      policy: () => ({ decision: "allow" }),
    });
    const result = await checkpoint.dispatch(
      { id: "c1", name: "note", arguments: '{"order_id":"SU-88421","amount":42.5}' },
      { sessionId: session.id },
    );
    expect(result).toMatchObject({ status: "refused", reason: "denied" });
    expect(result.message).toMatch(/^This call \(c1\) was refused earlier and is not run again: /);
    expect(result.message).toContain("The policy denied this call to note.");
    expect(result.message).not.toMatch(/own id/);
    expect(runs).toEqual([]);
  });
});
