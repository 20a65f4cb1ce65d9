import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createApproverDirectory } from "../../src/approval/approver-directory.js";
import { approvalIdFor } from "../../src/approval/decide-approval.js";
import { createDurableApprover } from "../../src/approval/durable-approver.js";
import { createCheckpoint } from "../../src/checkpoint/create-checkpoint.js";
import type { PolicyFunction } from "../../src/policy/policy.js";
import { openStore } from "../../src/store/open-store.js";
import type { Store } from "../../src/store/store.js";
import { defineTool } from "../../src/tool/define-tool.js";
import { runDocket } from "../support/run-docket.js";
import { runDocketTty } from "../support/run-docket-tty.js";

// `docket approvals` as an approver uses it: a real child process, in a folder with a docket.yaml,
// deciding requests that a run (here: a checkpoint in this process) left pending in the store.

const BOB_TOKEN = "bob-secret-token-of-22-chars-or-more";
const DOCKET_YAML = `approvers:
  alice: { roles: [lead] }
  bob: { roles: [lead], token_env: BOB_TOKEN }
  carol: { roles: [support] }
`;
const RULE = "refunds-need-a-lead";
const REASON = "refunds are decided by a lead";

const policy: PolicyFunction = () => ({
  decision: "ask",
  rule: RULE,
  layer: "project",
  reason: REASON,
  approvers: ["role:lead"],
});

let dir: string;
let storeUrl: string;
let store: Store;
let sessionId: string;
const ran: unknown[] = [];
let dispatch: (
  callId: string,
  args: Record<string, unknown>,
  principal?: string,
) => ReturnType<ReturnType<typeof createCheckpoint>["dispatch"]>;

/** Run `docket approvals …` in the temp folder; DOCKET_TOKEN only when given. */
function approvals(args: readonly string[], env: NodeJS.ProcessEnv = {}) {
  return runDocket(["approvals", ...args, "--store", storeUrl], {
    cwd: dir,
    env: { BOB_TOKEN, DOCKET_TOKEN: undefined, DOCKET_STORE: undefined, ...env },
  });
}

/**
 * The same at an interactive terminal (a real pseudo-terminal): a name without a token is only
 * accepted there. The terminal merges stderr into stdout.
 */
async function approvalsTty(args: readonly string[], env: NodeJS.ProcessEnv = {}) {
  const outcome = await runDocketTty(["approvals", ...args, "--store", storeUrl], {
    cwd: dir,
    env: { BOB_TOKEN, DOCKET_TOKEN: undefined, DOCKET_STORE: undefined, ...env },
  });
  return { ...outcome, stderr: outcome.stdout };
}

/** Leave a call pending: the suspend-mode approver records the request and the call does not run. */
async function pending(callId: string, args: Record<string, unknown>, principal?: string) {
  const result = await dispatch(callId, args, principal);
  expect(result).toMatchObject({ status: "awaiting_approval" });
  return approvalIdFor(sessionId, callId);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "docket-approvals-cli-"));
  await writeFile(join(dir, "docket.yaml"), DOCKET_YAML);
  storeUrl = `sqlite:${join(dir, "docket.db")}`;
  store = await openStore(storeUrl);
  sessionId = (await store.createSession({ principal: "agent", configHash: "test" })).id;
  const directory = createApproverDirectory(
    { alice: { roles: ["lead"] }, bob: { roles: ["lead"], token_env: "BOB_TOKEN" } },
    { BOB_TOKEN },
  );
  const refund = defineTool({
    name: "issue_refund",
    description: "Refund an order.",
    input: z.object({ order_id: z.string(), amount: z.number(), note: z.string().optional() }),
    writes: true,
    handler: (args) => {
      ran.push(args);
      return { refunded: args.amount };
    },
  });
  const checkpoint = createCheckpoint({
    tools: [refund],
    store,
    policy,
    approvals: createDurableApprover({ store, directory, mode: "suspend" }),
  });
  dispatch = (callId, args, principal) =>
    checkpoint.dispatch(
      { id: callId, name: "issue_refund", arguments: JSON.stringify(args) },
      { sessionId, ...(principal ? { principal } : {}) },
    );
});

afterAll(async () => {
  await store?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

// Each CLI process costs a second or two of start-up (more on a busy machine): be generous.
describe("docket approvals (CLI, real processes)", { timeout: 90_000 }, () => {
  it("lists the pending request and shows it exactly, control characters made visible", async () => {
    const id = await pending("list-1", {
      order_id: "SU-1",
      amount: 200,
      note: "ok\rrm -rf /\u001b[2K\u202e",
    });
    const [list, json, show] = await Promise.all([
      approvals(["list"]),
      approvals(["list", "--json"]),
      approvals(["show", id]),
    ]);

    expect(list.code).toBe(0);
    expect(list.stdout).toContain(id);
    expect(list.stdout).toContain("issue_refund");
    expect(list.stdout).toContain("pending");
    expect(list.stdout).toContain("role:lead");

    expect(json.code).toBe(0);
    const rows = json.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { id: string });
    const row = rows.find((r) => r.id === id);
    const stored = await store.getApproval(id);
    expect(row).toEqual(JSON.parse(JSON.stringify(stored)));
    expect(row).toMatchObject({
      status: "pending",
      tool: "issue_refund",
      callId: "list-1",
      requestedBy: "agent",
      rule: RULE,
      reason: REASON,
      approvers: ["role:lead"],
      argsHash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });

    expect(show.code).toBe(0);
    expect(show.stdout).toContain(`approval  ${id}  (pending)`);
    expect(show.stdout).toContain("tool      issue_refund");
    expect(show.stdout).toContain(`rule      ${RULE}: ${REASON}`);
    expect(show.stdout).toContain(`sha256    ${stored?.argsHash}`);
    expect(show.stdout).toContain('"order_id": "SU-1"');
    expect(show.stdout).toContain('"amount": 200');
    expect(show.stdout).toContain(String.raw`"note": "ok\u{000d}rm -rf /\u{001b}[2K\u{202e}"`);
    // Nothing the terminal would interpret: no raw carriage return, escape or bidi override.
    for (const raw of ["\r", "\u001b", "\u202e"]) expect(show.stdout).not.toContain(raw);
    expect(ran).toEqual([]);
  });

  it("refuses --as alice without a token from a pipe, naming the alternative; audited", async () => {
    const id = await pending("alice-pipe", { order_id: "SU-9", amount: 90 });
    const [approve, deny] = await Promise.all([
      approvals(["approve", id, "--as", "alice"]),
      approvals(["deny", id, "--as", "alice", "--reason", "no"]),
    ]);
    for (const outcome of [approve, deny]) {
      expect(outcome.code).toBe(2);
      expect(outcome.stderr).toContain("accepted only from an interactive terminal");
      expect(outcome.stderr).toContain("DOCKET_TOKEN");
    }
    expect((await store.getApproval(id))?.status).toBe("pending");
    const logs = await store.listEvents({ sessionId, type: "log" });
    expect(
      logs.some((record) =>
        (record.event as { message: string }).message.includes(
          "alice: a decision without a token (--as NAME alone) is accepted only from an interactive terminal",
        ),
      ),
    ).toBe(true);
  });

  it("approves --as alice at a terminal: recorded as locally asserted, and the call then runs", async () => {
    const args = { order_id: "SU-2", amount: 300 };
    const id = await pending("alice-1", args);
    const approve = await approvalsTty(["approve", id, "--as", "alice"]);
    expect(approve.code, approve.stderr).toBe(0);
    expect(approve.stdout.trim()).toBe(`${id} approved by alice`);
    expect(await store.getApproval(id)).toMatchObject({
      status: "approved",
      decidedBy: "alice",
      locallyAsserted: true,
      scope: "once",
    });
    expect(await dispatch("alice-1", args)).toMatchObject({ status: "ok" });
    expect(ran).toEqual([args]);
  });

  it("says what --session covers before and after approving with it, and the grant covers no more", async () => {
    const args = { order_id: "SU-8", amount: 300 };
    const id = await pending("session-1", args);
    const show = await approvals(["show", id]);
    // The policy here is a function: what it judged is unknown, so the grant binds every argument.
    expect(show.stdout).toContain(
      "session   --session would also approve: later issue_refund calls in this session that refunds-need-a-lead asks about, with exactly these arguments",
    );
    // With a token: it works from a pipe whether or not names alone are accepted there.
    const approve = await approvals(["approve", id, "--as", "bob", "--session"], {
      DOCKET_TOKEN: BOB_TOKEN,
    });
    expect(approve.code, approve.stderr).toBe(0);
    expect(approve.stdout).toContain("for this session it also approves later issue_refund calls");
    expect(await dispatch("session-1", args)).toMatchObject({ status: "ok" });
    expect(await dispatch("session-2", args)).toMatchObject({ status: "ok" });
    expect(await dispatch("session-3", { ...args, amount: 5000 })).toMatchObject({
      status: "awaiting_approval",
    });
    ran.length = 0;
  });

  it("refuses --as bob without his token, and accepts it from DOCKET_TOKEN (not locally asserted)", async () => {
    const id = await pending("bob-1", { order_id: "SU-3", amount: 400 });
    // Authentication comes before anything else, so the two may race: the one without the
    // token is refused whether or not the other has decided yet.
    const [without, right] = await Promise.all([
      approvals(["approve", id, "--as", "bob"]),
      approvals(["approve", id, "--as", "bob", "--reason", "checked"], { DOCKET_TOKEN: BOB_TOKEN }),
    ]);
    expect(without.code).toBe(2);
    expect(without.stderr).toContain("bob has a token: give it (DOCKET_TOKEN");
    expect(right.code, right.stderr).toBe(0);
    expect(right.stdout.trim()).toBe(`${id} approved by bob`);
    expect(await store.getApproval(id)).toMatchObject({
      status: "approved",
      decidedBy: "bob",
      decisionReason: "checked",
      locallyAsserted: false,
    });
  });

  it("forbids carol (not a lead), the agent and self-approval; a denial needs a reason; refusals are audited", async () => {
    const args = { order_id: "SU-4", amount: 500 };
    const id = await pending("refuse-1", args);
    // A call alice herself requested: she may not decide it, although she is a lead.
    const own = await pending("own-1", { order_id: "SU-5", amount: 600 }, "alice");
    const [carol, agent, self, noReason] = await Promise.all([
      approvalsTty(["approve", id, "--as", "carol"]),
      approvals(["approve", id, "--as", "agent"]),
      approvalsTty(["approve", own, "--as", "alice"]),
      approvalsTty(["deny", id, "--as", "alice"]),
    ]);
    expect(carol.code).toBe(2);
    expect(carol.stderr).toContain("carol may not decide this request; it needs role:lead");
    // The requesting principal "agent" is not an approver at all: refused before anything else.
    expect(agent.code).toBe(2);
    expect(agent.stderr).toContain("agent is not a configured approver");
    // And where approvers must be declared for the CLI to know them (issue 40, item 2).
    expect(agent.stderr).toMatch(
      /The CLI reads approvers from approvers: in \S*docket\.yaml \(alice, bob, carol\)\./,
    );
    expect(agent.stderr).toContain(
      "Approvers given only in your program's code (createApproverDirectory) are not seen by the CLI: declare agent in",
    );
    expect(agent.stderr).toContain("  approvers:\n    agent:\n      roles: [lead]\n");
    expect(carol.stderr).not.toContain("The CLI reads approvers");
    expect(self.code).toBe(2);
    expect(self.stderr).toContain("alice requested this call and cannot approve or deny it");
    expect(noReason.code).toBe(2);
    expect(noReason.stderr).toContain("A denial needs a reason");
    expect((await store.getApproval(id))?.status).toBe("pending");
    expect((await store.getApproval(own))?.status).toBe("pending");

    const logs = await store.listEvents({ sessionId, type: "log" });
    const attempts = logs.map((record) => ({
      message: (record.event as { message: string }).message,
      data: (record.event as { data: unknown }).data,
    }));
    expect(attempts).toContainEqual({
      message: expect.stringMatching(/^refused approval attempt: carol is not among role:lead/),
      data: { approvalId: id, attempt: "approve", claimed: "carol" },
    });
    expect(attempts).toContainEqual({
      message: "refused approval attempt: agent is not a configured approver.",
      data: { approvalId: id, attempt: "approve", claimed: "agent" },
    });
    expect(attempts).toContainEqual({
      message: expect.stringContaining("alice requested this call and cannot decide it"),
      data: { approvalId: own, attempt: "approve", claimed: "alice" },
    });

    // With a reason the denial is recorded, and the model is told why. (An unknown id: exit 1.)
    const [deny, unknown] = await Promise.all([
      approvalsTty(["deny", id, "--as", "alice", "--reason", "call the customer first"]),
      approvals(["approve", "apr_nope", "--as", "alice"]),
    ]);
    expect(deny.code, deny.stderr).toBe(0);
    expect(deny.stdout.trim()).toBe(`${id} denied by alice`);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("There is no approval request apr_nope");
    const result = await dispatch("refuse-1", args);
    expect(result).toMatchObject({ status: "refused", reason: "approval_denied" });
    expect(result.message).toBe("alice denied this call to issue_refund: call the customer first.");
    expect(ran).not.toContainEqual(args);

    // A second decision changes nothing: exit 3, "already".
    const again = await approvals(["approve", id, "--as", "bob"], { DOCKET_TOKEN: BOB_TOKEN });
    expect(again.code).toBe(3);
    expect(again.stderr).toContain(`Request ${id} was already denied by alice.`);
    expect(await store.getApproval(id)).toMatchObject({ status: "denied", decidedBy: "alice" });
  });

  it("pages `approvals list`: newest first, says how many and gives the next page's command", async () => {
    for (let i = 0; i < 150; i += 1) {
      await store.createApproval({
        sessionId,
        callId: `page-${i}`,
        id: `apr_page_${String(i).padStart(3, "0")}`,
        tool: "issue_refund",
        canonicalArgs: "{}",
        argsHash: "0".repeat(64),
        requestedBy: "agent",
        createdAt: 5_000 + i,
      });
    }
    await store.flush();
    const ids: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    for (;;) {
      const page = await approvals([
        "list",
        "--all",
        "--limit",
        "100",
        "--json",
        ...(cursor ? ["--cursor", cursor] : []),
      ]);
      expect(page.code).toBe(0);
      pages += 1;
      ids.push(
        ...page.stdout
          .trim()
          .split("\n")
          .map((line) => (JSON.parse(line) as { id: string }).id),
      );
      const hint =
        /(\d+) of (\d+) shown, newest first; more: docket approvals list --cursor (\S+) --all/.exec(
          page.stderr,
        );
      if (!hint) break;
      expect(hint[1]).toBe("100");
      cursor = hint[3];
    }
    expect(pages).toBeGreaterThanOrEqual(2);
    expect(new Set(ids).size).toBe(ids.length);
    // The oldest requests come last, newest first among them.
    const expected = Array.from(
      { length: 150 },
      (_, i) => `apr_page_${String(149 - i).padStart(3, "0")}`,
    );
    expect(ids.slice(-150)).toEqual(expected);
    const bad = await approvals(["list", "--cursor", "garbage!"]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("cursor");
    expect(bad.stderr).not.toMatch(/\n\s+at /);
  }, 60_000);
});
