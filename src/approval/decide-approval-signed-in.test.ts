import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../store/open-store.js";
import type { Store } from "../store/store.js";
import { createApproverDirectory, hashToken } from "./approver-directory.js";
import { decideApproval } from "./decide-approval.js";

// `claim.signedIn`: a channel (the web console) checked the token at sign-in. It names only an
// approver who has a token, and every other rule still applies.

const directory = createApproverDirectory(
  {
    alice: { roles: ["lead"] },
    bob: { roles: ["lead"], token_sha256: hashToken("b") },
    agent: { roles: ["lead"], token_sha256: hashToken("a") },
  },
  {},
);
let dir: string;
let store: Store;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "docket-signed-in-"));
  store = await openStore(`sqlite:${join(dir, "docket.db")}`);
});
afterAll(async () => {
  await store?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const ask = (callId: string) =>
  store.createApproval({
    callId,
    tool: "t",
    canonicalArgs: "{}",
    argsHash: "h",
    requestedBy: "agent",
    approvers: ["role:lead"],
  });

describe("decideApproval with a signed-in approver", () => {
  it("decides for an approver with a token, authenticated rather than locally asserted", async () => {
    const approval = await ask("c1");
    const outcome = await decideApproval(store, directory, {
      approvalId: approval.id,
      decision: "approve",
      claim: { signedIn: "bob" },
    });
    expect(outcome).toMatchObject({
      status: "decided",
      approval: { decidedBy: "bob", locallyAsserted: false },
    });
  });

  it("refuses a name without a token, an unknown name, and the requester", async () => {
    const approval = await ask("c2");
    for (const [name, status] of [
      ["alice", "unauthenticated"],
      ["mallory", "unauthenticated"],
      ["agent", "forbidden"],
    ] as const) {
      const outcome = await decideApproval(store, directory, {
        approvalId: approval.id,
        decision: "approve",
        claim: { signedIn: name },
      });
      expect(outcome.status, name).toBe(status);
    }
    expect((await store.getApproval(approval.id))?.status).toBe("pending");
  });
});
