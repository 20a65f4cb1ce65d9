import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../store/open-store.js";
import type { Store } from "../store/store.js";
import { approvalCard } from "./approval-card.js";
import { cardContext } from "./card-context.js";

let dir: string;
let store: Store;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "docket-card-context-"));
  store = await openStore(`sqlite:${join(dir, "docket.db")}`);
});
afterAll(async () => {
  await store?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const viewer = { name: "bob", csrf: "t" };

describe("the card's conversation", () => {
  it("is the user's last message and the agent's words in the reply that asked, escaped", async () => {
    const session = await store.createSession({ principal: "agent", configHash: "h" });
    await store.appendMessage(session.id, {
      role: "user",
      content: { role: "user", text: "Refund order 88421, please." },
    });
    await store.appendMessage(session.id, {
      role: "assistant",
      content: {
        role: "assistant",
        text: "<img src=x onerror=alert(1)> Refunding 200 USD.",
        toolCalls: [{ id: "c_refund", name: "issue_refund", arguments: "{}" }],
      },
    });
    await store.appendMessage(session.id, {
      role: "user",
      content: { role: "user", text: "A later message." },
    });
    const approval = await store.createApproval({
      sessionId: session.id,
      callId: "c_refund",
      tool: "issue_refund",
      canonicalArgs: "{}",
      argsHash: "ab".repeat(32),
      requestedBy: "agent",
    });
    const context = await cardContext(store, approval, { project: "docket.yaml", workspace: dir });
    expect(context).toMatchObject({
      lastUser: "Refund order 88421, please.",
      lastAssistant: "<img src=x onerror=alert(1)> Refunding 200 USD.",
      project: "docket.yaml",
    });
    const html = approvalCard(
      approval,
      viewer,
      { status: "may_decide", session: false },
      context,
    ).toString();
    expect(html).toContain("The user asked:</b> Refund order 88421, please.");
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt; Refunding 200 USD.");
    expect(html).not.toContain("<img src=x");
  });

  it("is empty outside a session, and for a session whose transcript has nothing yet", async () => {
    const approval = await store.createApproval({
      callId: "c_alone",
      tool: "t",
      canonicalArgs: "{}",
      argsHash: "cd".repeat(32),
      requestedBy: "agent",
    });
    expect(await cardContext(store, approval)).toEqual({
      lastUser: undefined,
      lastAssistant: undefined,
      project: undefined,
      workspace: undefined,
    });
  });
});
