import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ApprovalAnswer, ApprovalRequest, Approver } from "../../src/approval/approval.js";
import { serveApprovals } from "../../src/approval/approvals-http-server.js";
import { createApproverDirectory, hashToken } from "../../src/approval/approver-directory.js";
import { approvalIdFor, decideApproval } from "../../src/approval/decide-approval.js";
import { createDurableApprover } from "../../src/approval/durable-approver.js";
import { builtinTools } from "../../src/builtin/builtin-tools.js";
import { createCheckpoint } from "../../src/checkpoint/create-checkpoint.js";
import { createMemoryEventSink } from "../../src/checkpoint/memory-event-sink.js";
import { createPolicyEngine } from "../../src/policy/policy-engine.js";
import type { PolicyRuleSpec } from "../../src/policy/policy-rule.js";
import { openStore } from "../../src/store/open-store.js";
import type { Store } from "../../src/store/store.js";
import { defineTool } from "../../src/tool/define-tool.js";
import type { Tool } from "../../src/tool/tool.js";
import { tempDir } from "../loop/support/temp-dir.js";

/**
 * "Approve for this session" as an attacker would probe it: a grant must never cover a call the
 * approver was not shown the like of. Real policy engine, real SQLite store, real files.
 */

const ran: unknown[] = [];
const refund = defineTool({
  name: "issue_refund",
  description: "Refund an order.",
  input: z.object({ order_id: z.string(), amount: z.number(), currency: z.string().optional() }),
  writes: true,
  handler: (args) => {
    ran.push(args);
    return { refunded: args.amount };
  },
});

// The policy of examples/policy/docket.yaml for refunds.
const refundRules: PolicyRuleSpec[] = [
  { id: "small-refunds", decision: "allow", tool: "issue_refund", when: "args.amount <= 150" },
  {
    id: "refund-ceiling",
    decision: "ask",
    tool: "issue_refund",
    when: "args.amount > 150",
    reason: "refunds over 150 USD need a lead",
  },
];

/** A function approver that approves the first request for the session and denies the rest. */
function grantOnce(scope: "session" | "once" = "session") {
  const asked: ApprovalRequest[] = [];
  const approver: Approver = (request): ApprovalAnswer => {
    asked.push(request);
    return asked.length === 1
      ? { decision: "approve", by: "alice", scope }
      : { decision: "deny", by: "alice", reason: "asked again, as it should" };
  };
  return { approver, asked };
}

async function checkpointWith(
  options: { rules?: PolicyRuleSpec[]; tools?: Tool[]; approvals: Approver; store?: Store },
  workspace?: string,
) {
  const ws = workspace ?? (await tempDir("docket-grants-"));
  const policy = await createPolicyEngine({
    layers: [{ name: "project", rules: options.rules ?? refundRules }],
    workspace: ws,
  });
  const checkpoint = createCheckpoint({
    tools: options.tools ?? [refund],
    policy,
    approvals: options.approvals,
    // Writes are audited: to the store when there is one, else to memory.
    ...(options.store ? { store: options.store } : { events: createMemoryEventSink() }),
  });
  let n = 0;
  const call = (name: string, args: unknown, sessionId: string | null = "ses_1", id = `c${++n}`) =>
    checkpoint.dispatch(
      { id, name, arguments: JSON.stringify(args) },
      sessionId === null ? {} : { sessionId },
    );
  return { call, workspace: ws };
}

describe("a session grant never crosses an argument predicate", () => {
  it("a grant on a 300 USD refund does not let a 5,000 USD refund through", async () => {
    const { approver, asked } = grantOnce();
    const { call } = await checkpointWith({ approvals: approver });
    expect(await call("issue_refund", { order_id: "SU-1", amount: 300 })).toMatchObject({
      status: "ok",
    });
    const big = await call("issue_refund", { order_id: "SU-1", amount: 5000 });
    expect(big).toMatchObject({ status: "refused", reason: "approval_denied" });
    expect(asked).toHaveLength(2);
    // What the approver was told the grant covers: the amount it saw, nothing wider.
    const first = asked[0]?.grant;
    expect(first?.status).toBe("offered");
    expect(first?.status === "offered" && first.covers).toContain("amount = 300");
    expect(first?.status === "offered" && first.covers).toContain("ask refund-ceiling");
  });

  it("covers what the approver saw: the same amount for another order, in the same session only", async () => {
    const { approver, asked } = grantOnce();
    const { call } = await checkpointWith({ approvals: approver });
    await call("issue_refund", { order_id: "SU-1", amount: 300 });
    expect(await call("issue_refund", { order_id: "SU-2", amount: 300 })).toMatchObject({
      status: "ok",
    });
    expect(asked).toHaveLength(1);
    expect(
      await call("issue_refund", { order_id: "SU-2", amount: 300 }, "ses_other"),
    ).toMatchObject({ status: "refused", reason: "approval_denied" });
    expect(asked).toHaveLength(2);
  });

  it("binds every argument a condition reads, and all of them when it reads args as a whole", async () => {
    const currency: PolicyRuleSpec[] = [
      { id: "usd", decision: "ask", tool: "issue_refund", when: 'args.currency == "USD"' },
    ];
    const one = grantOnce();
    const a = await checkpointWith({ rules: currency, approvals: one.approver });
    await a.call("issue_refund", { order_id: "SU-1", amount: 10, currency: "USD" });
    // `amount` is judged by no rule here: it may differ; `currency` may not.
    expect(
      await a.call("issue_refund", { order_id: "SU-1", amount: 9999, currency: "USD" }),
    ).toMatchObject({ status: "ok" });
    expect(one.asked).toHaveLength(1);

    const whole: PolicyRuleSpec[] = [
      { id: "big-call", decision: "ask", tool: "issue_refund", when: "size(args) >= 2" },
    ];
    const two = grantOnce();
    const b = await checkpointWith({ rules: whole, approvals: two.approver });
    await b.call("issue_refund", { order_id: "SU-1", amount: 10 });
    expect(await b.call("issue_refund", { order_id: "SU-1", amount: 11 })).toMatchObject({
      status: "refused",
      reason: "approval_denied",
    });
    const covers = two.asked[0]?.grant;
    expect(covers?.status === "offered" && covers.covers).toContain("exactly these arguments");
  });

  it("does not cover a call on which another rule starts to vote", async () => {
    const rules: PolicyRuleSpec[] = [
      { id: "refunds", decision: "ask", tool: "issue_refund" },
      {
        id: "finance",
        decision: "ask",
        tool: "issue_refund",
        when: "args.amount > 1000",
        approvers: ["role:finance"],
      },
    ];
    const { approver, asked } = grantOnce();
    const { call } = await checkpointWith({ rules, approvals: approver });
    await call("issue_refund", { order_id: "SU-1", amount: 300 });
    // `refunds` judges no argument, so another amount under the finance line is covered...
    expect(await call("issue_refund", { order_id: "SU-2", amount: 900 })).toMatchObject({
      status: "ok",
    });
    // ...but once `finance` votes too, it is not the call that was approved.
    expect(await call("issue_refund", { order_id: "SU-3", amount: 5000 })).toMatchObject({
      status: "refused",
      reason: "approval_denied",
    });
    expect(asked).toHaveLength(2);
  });

  it("a write_file grant covers that path (however spelled), not ../x or .github/workflows/x.yml", async () => {
    const { approver, asked } = grantOnce();
    const workspace = await tempDir("docket-grants-");
    const { call } = await checkpointWith(
      { rules: [], tools: builtinTools({ workspace }), approvals: approver },
      workspace,
    );
    expect(await call("write_file", { path: "a.txt", content: "one" })).toMatchObject({
      status: "ok",
    });
    expect(await call("write_file", { path: "sub/../a.txt", content: "two" })).toMatchObject({
      status: "ok",
    });
    expect(await readFile(join(workspace, "a.txt"), "utf8")).toBe("two");
    expect(asked).toHaveLength(1);
    for (const path of ["../x", ".github/workflows/x.yml", "b.txt"]) {
      expect(await call("write_file", { path, content: "evil" })).toMatchObject({
        status: "refused",
        reason: "approval_denied",
      });
    }
    expect(asked).toHaveLength(4);
    const grant = asked[0]?.grant;
    expect(grant?.status === "offered" && grant.covers).toContain(`path "${workspace}/a.txt"`);
  });

  it("never offers one for run_command: `touch a` approved for the session does not cover `touch a; rm -rf x`", async () => {
    const { approver, asked } = grantOnce();
    const workspace = await tempDir("docket-grants-");
    const { call } = await checkpointWith(
      { rules: [], tools: builtinTools({ workspace }), approvals: approver },
      workspace,
    );
    // A function approver's session scope is refused, loudly, and the call does not run.
    // (A write: `ls` alone is a proven read, allowed by the reads default without asking.)
    const first = await call("run_command", { command: "touch a" });
    expect(first).toMatchObject({ status: "refused", reason: "approval_error" });
    expect(first.message).toContain("offers no session grant");
    expect(first.message).toContain("runs shell commands");
    expect(await call("run_command", { command: "touch a; rm -rf x" })).toMatchObject({
      status: "refused",
      reason: "approval_denied",
    });
    expect(asked.map((r) => r.grant.status)).toEqual(["not_offered", "not_offered"]);
  });

  it("refuses a function approver's session scope outside a session, and honours `once`", async () => {
    const session = grantOnce();
    const a = await checkpointWith({ approvals: session.approver });
    const outside = await a.call("issue_refund", { order_id: "SU-1", amount: 300 }, null);
    expect(outside).toMatchObject({ status: "refused", reason: "approval_error" });
    expect(outside.message).toContain("no session");

    const once = grantOnce("once");
    const b = await checkpointWith({ approvals: once.approver });
    await b.call("issue_refund", { order_id: "SU-1", amount: 300 });
    expect(await b.call("issue_refund", { order_id: "SU-1", amount: 300 })).toMatchObject({
      status: "refused",
    });
    expect(once.asked).toHaveLength(2);
  });

  it("a policy function that claims a grant for a shell tool gets none", async () => {
    const { approver, asked } = grantOnce();
    const workspace = await tempDir("docket-grants-");
    const checkpoint = createCheckpoint({
      tools: builtinTools({ workspace }),
      events: createMemoryEventSink(),
      approvals: approver,
      policy: () => ({
        decision: "ask",
        rule: "mine",
        grant: { status: "offered", key: "a".repeat(64), covers: "anything" },
      }),
    });
    const result = await checkpoint.dispatch(
      { id: "c1", name: "run_command", arguments: '{"command":"ls"}' },
      { sessionId: "ses_1" },
    );
    expect(result).toMatchObject({ status: "refused", reason: "approval_error" });
    expect(asked[0]?.grant.status).toBe("not_offered");
  });
});

describe("durable session grants", () => {
  const directory = createApproverDirectory({ alice: { roles: ["lead"] } }, {});

  async function durableSetup(url: string, workspace: string) {
    const store = await openStore(url);
    const approvals = createDurableApprover({ store, directory, mode: "suspend" });
    const { call } = await checkpointWith({ approvals, store }, workspace);
    return { store, call };
  }

  it("are stored with what they cover, reused after a resume in a new checkpoint, and never widened", async () => {
    const workspace = await tempDir("docket-grants-");
    const url = `sqlite:${join(workspace, "docket.db")}`;
    const first = await durableSetup(url, workspace);
    const session = await first.store.createSession({ principal: "agent", configHash: "t" });
    const pending = await first.call(
      "issue_refund",
      { order_id: "SU-1", amount: 300 },
      session.id,
      "first-1",
    );
    expect(pending).toMatchObject({ status: "awaiting_approval" });
    const approvalId = (pending as { approvalId: string }).approvalId;
    const stored = await first.store.getApproval(approvalId);
    expect(stored?.grantKey).toMatch(/^[0-9a-f]{64}$/);
    expect(stored?.grantText).toContain("amount = 300");
    const decided = await decideApproval(first.store, directory, {
      approvalId,
      decision: "approve",
      scope: "session",
      claim: { name: "alice" },
    });
    expect(decided).toMatchObject({ status: "decided", approval: { scope: "session" } });
    await first.store.close();

    // A new process: a new store handle and checkpoint, with nothing in memory.
    const second = await durableSetup(url, workspace);
    const again = await second.call(
      "issue_refund",
      { order_id: "SU-7", amount: 300 },
      session.id,
      "second-1",
    );
    expect(again).toMatchObject({ status: "ok" });
    const wider = await second.call(
      "issue_refund",
      { order_id: "SU-7", amount: 5000 },
      session.id,
      "second-2",
    );
    expect(wider).toMatchObject({ status: "awaiting_approval" });
    const events = await second.store.listEvents({ sessionId: session.id });
    expect(
      events.some(
        ({ event: e }) =>
          e.type === "approved" &&
          e.scope === "session" &&
          String(e.reason).includes(`request ${approvalId}`) &&
          String(e.covers).includes("amount = 300"),
      ),
    ).toBe(true);
    await second.store.close();
  });

  it("an old session approval without a grant key covers nothing else", async () => {
    const workspace = await tempDir("docket-grants-");
    const { store, call } = await durableSetup(`sqlite:${join(workspace, "docket.db")}`, workspace);
    const session = await store.createSession({ principal: "agent", configHash: "t" });
    const old = await store.createApproval({
      id: approvalIdFor(session.id, "old"),
      sessionId: session.id,
      callId: "old",
      tool: "issue_refund",
      canonicalArgs: '{"amount":300,"order_id":"SU-1"}',
      argsHash: "0".repeat(64),
      requestedBy: "agent",
      rule: "refund-ceiling",
    });
    await store.decideApproval(old.id, { decision: "approved", by: "alice", scope: "session" });
    expect(await call("issue_refund", { order_id: "SU-1", amount: 300 }, session.id)).toMatchObject(
      { status: "awaiting_approval" },
    );
    await store.close();
  });

  it("the CLI's and HTTP API's --session is refused for a request that offers no grant", async () => {
    const workspace = await tempDir("docket-grants-");
    const store = await openStore(`sqlite:${join(workspace, "docket.db")}`);
    const tokenDirectory = createApproverDirectory(
      { bob: { roles: ["lead"], token_sha256: hashToken("bob-token") } },
      {},
    );
    const approvals = createDurableApprover({ store, directory: tokenDirectory, mode: "suspend" });
    const { call } = await checkpointWith(
      { rules: [], tools: builtinTools({ workspace }), approvals, store },
      workspace,
    );
    const session = await store.createSession({ principal: "agent", configHash: "t" });
    const pending = await call("run_command", { command: "touch a" }, session.id);
    const approvalId = (pending as { approvalId: string }).approvalId;
    expect((await store.getApproval(approvalId))?.grantText).toContain("not offered");

    const api = await serveApprovals({ store, directory: tokenDirectory });
    try {
      const response = await fetch(`${api.url}/approvals/${approvalId}/decision`, {
        method: "POST",
        headers: { authorization: "Bearer bob-token", "content-type": "application/json" },
        body: JSON.stringify({ decision: "approve", scope: "session" }),
      });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { message: string }).message).toContain(
        "offers no session grant",
      );
      const shown = await fetch(`${api.url}/approvals/${approvalId}`, {
        headers: { authorization: "Bearer bob-token" },
      });
      expect(((await shown.json()) as { grantText: string }).grantText).toContain(
        "runs shell commands",
      );
    } finally {
      await api.close();
    }
    expect((await store.getApproval(approvalId))?.status).toBe("pending");
    await store.close();
  });
});
