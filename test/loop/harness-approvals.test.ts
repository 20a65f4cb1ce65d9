import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type ApproverConfig, hashToken } from "../../src/approval/approver-directory.js";
import { isDocketError } from "../../src/errors/docket-error.js";
import { createHarness } from "../../src/loop/create-harness.js";
import { createScriptedModel } from "../../src/model/scripted-model.js";
import { runDocket } from "../support/run-docket.js";
import { DESK_POLICY, deskTools } from "./support/desk-tools.js";
import { call, scriptOf, turn } from "./support/model-script.js";
import { tempStore } from "./support/temp-store.js";

// `createHarness({ approvals: { approvers } })`: durable approvals in one option, on the harness's
// own store, decided through the same checks as every channel.
const SCRIPT = scriptOf([
  turn("Refunding.", call("r_1", "issue_refund", { order_id: "SU-1", amount: 20 })),
  turn("Refunded."),
]);

const LEAD_AND_SUPPORT: Record<string, ApproverConfig> = {
  alice: { roles: ["lead"] },
  bob: { roles: ["support"] },
};

/** A harness on the store at `url` (which it opens and closes), with durable approvals. */
async function ownedStoreHarness(url: string, approvers = LEAD_AND_SUPPORT) {
  const desk = deskTools();
  const harness = createHarness({
    model: createScriptedModel(SCRIPT),
    tools: desk.tools,
    policy: DESK_POLICY,
    store: url,
    approvals: { approvers },
  });
  return { harness, runs: desk.runs };
}

describe("createHarness with durable approvals in one option", () => {
  it("suspends, refuses a stranger and a non-lead, runs the call once on alice's approval from a second harness", async () => {
    const { url } = await tempStore();
    const first = await ownedStoreHarness(url);
    const suspended = await first.harness.run("Refund SU-1.");
    expect(suspended.status).toBe("suspended");
    const approvalId = suspended.approvals?.[0]?.approvalId ?? "";
    const stored = await (await first.harness.store()).getApproval(approvalId);
    expect(stored?.status).toBe("pending");
    expect(stored?.argsHash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored?.approvers).toEqual(["role:lead"]);
    await first.harness.close();

    // A restart: another harness on the same store file sees the same request.
    const second = await ownedStoreHarness(url);
    const approve = (name: string) =>
      second.harness.decideApproval({ approvalId, decision: "approve", claim: { name } });
    expect((await approve("mallory")).status).toBe("unauthenticated");
    expect((await approve("bob")).status).toBe("forbidden");
    expect(first.runs).toEqual([]);
    expect((await approve("alice")).status).toBe("decided");
    expect((await approve("alice")).status).toBe("conflict");

    const resumed = await second.harness.resume(suspended.sessionId);
    expect(resumed.status).toBe("completed");
    expect(resumed.text).toBe("Refunded.");
    expect(second.runs).toEqual(["issue_refund:r_1"]);
    await second.harness.close();
  });

  it("is answered through `docket approvals approve` by an approver with a token, and not in code without it", async () => {
    const { dir, url } = await tempStore();
    const token = "alice-token-0123456789-abcdefghijklmnop";
    const alice = { roles: ["lead"], token_sha256: hashToken(token) };
    const { harness, runs } = await ownedStoreHarness(url, { alice });
    const suspended = await harness.run("Refund SU-1.");
    const approvalId = suspended.approvals?.[0]?.approvalId ?? "";
    const nameOnly = await harness.decideApproval({
      approvalId,
      decision: "approve",
      claim: { name: "alice" },
    });
    expect(nameOnly.status).toBe("unauthenticated");
    await harness.close();

    const config = join(dir, "docket.yaml");
    await writeFile(
      config,
      `approvers:\n  alice: { roles: [lead], token_sha256: "${alice.token_sha256}" }\n`,
    );
    const cli = await runDocket(
      ["approvals", "approve", approvalId, "--as", "alice", "--store", url, "--config", config],
      { cwd: dir, env: { HOME: dir, DOCKET_TOKEN: token } },
    );
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout.trim()).toBe(`${approvalId} approved by alice`);
    const resumed = await harness.resume(suspended.sessionId);
    expect(resumed.status).toBe("completed");
    expect(runs).toEqual(["issue_refund:r_1"]);
    await harness.close();
  });

  it("refuses decisions in code when the approver is a function, with a DocketError naming the option", async () => {
    const { store } = await tempStore();
    const harness = createHarness({
      model: createScriptedModel(SCRIPT),
      tools: deskTools().tools,
      store,
      approvals: () => ({ decision: "approve", by: "refund-bot" }),
    });
    const attempt = harness.decideApproval({
      approvalId: "x",
      decision: "approve",
      claim: { name: "alice" },
    });
    await expect(attempt).rejects.toSatisfy(
      (error) =>
        isDocketError(error, "config_invalid") && /approvals: \{ approvers/.test(String(error)),
    );
  });

  it("throws at creation for an approver whose token hash is not a SHA-256", () => {
    expect(() =>
      createHarness({
        model: createScriptedModel(SCRIPT),
        tools: deskTools().tools,
        approvals: { approvers: { alice: { token_sha256: "not-a-hash" } } },
      }),
    ).toThrow(/approvers\.alice\.token_sha256 must be 64 hex characters/);
  });
});
