import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { Approver } from "../../src/approval/approval.js";
import {
  type ApprovalsHttpServer,
  serveApprovals,
} from "../../src/approval/approvals-http-server.js";
import { createApproverDirectory, hashToken } from "../../src/approval/approver-directory.js";
import { approvalIdFor } from "../../src/approval/decide-approval.js";
import { createDurableApprover } from "../../src/approval/durable-approver.js";
import { createCheckpoint } from "../../src/checkpoint/create-checkpoint.js";
import type { Approval } from "../../src/store/approval-record.js";
import { openStore } from "../../src/store/open-store.js";
import type { Store } from "../../src/store/store.js";
import { defineTool } from "../../src/tool/define-tool.js";

// The approvals API over real HTTP on 127.0.0.1, deciding requests a checkpoint left in the store.

const TOKENS = {
  bob: "bob-token",
  carol: "carol-token",
  dave: "dave-token",
  agent: "agent-token",
} as const;
const directory = createApproverDirectory(
  {
    alice: { roles: ["lead"] }, // no token: she can never authenticate over HTTP
    bob: { roles: ["lead"], token_sha256: hashToken(TOKENS.bob) },
    carol: { roles: ["support"], token_sha256: hashToken(TOKENS.carol) },
    dave: { roles: ["lead"], token_sha256: hashToken(TOKENS.dave) },
    // The agent's principal has a token (and the lead role): it still may not decide its own calls.
    agent: { roles: ["lead"], token_sha256: hashToken(TOKENS.agent) },
  },
  {},
);

let dir: string;
let store: Store;
let api: ApprovalsHttpServer;
let sessionId: string;
const ran: unknown[] = [];

function checkpointWith(approvals: Approver) {
  const refund = defineTool({
    name: "issue_refund",
    description: "Refund an order.",
    input: z.object({ order_id: z.string(), amount: z.number() }),
    writes: true,
    handler: (args) => {
      ran.push(args);
      return { refunded: args.amount };
    },
  });
  const checkpoint = createCheckpoint({ tools: [refund], store, approvals });
  return (callId: string, args: { order_id: string; amount: number }) =>
    checkpoint.dispatch(
      { id: callId, name: "issue_refund", arguments: JSON.stringify(args) },
      { sessionId },
    );
}

let suspend: ReturnType<typeof checkpointWith>;

async function pending(callId: string): Promise<string> {
  const result = await suspend(callId, { order_id: callId, amount: 200 });
  expect(result).toMatchObject({ status: "awaiting_approval" });
  return approvalIdFor(sessionId, callId);
}

function call(
  path: string,
  { token, method = "GET", body }: { token?: string; method?: string; body?: string } = {},
) {
  return fetch(`${api.url}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
    },
    ...(body !== undefined ? { body } : {}),
  });
}

function decide(id: string, token: string, body: unknown) {
  return call(`/approvals/${id}/decision`, {
    token,
    method: "POST",
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "docket-approvals-http-"));
  store = await openStore(`sqlite:${join(dir, "docket.db")}`);
  sessionId = (await store.createSession({ principal: "agent", configHash: "test" })).id;
  suspend = checkpointWith(
    createDurableApprover({ store, directory, mode: "suspend", defaultApprovers: ["role:lead"] }),
  );
  api = await serveApprovals({ store, directory, port: 0 });
});

afterAll(async () => {
  await api?.close();
  await store?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("the approvals HTTP API", () => {
  it("listens on 127.0.0.1 and needs an approver's bearer token", async () => {
    expect(api.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const id = await pending("auth-1");

    const none = await call("/approvals");
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toBe('Bearer realm="docket"');
    expect(await none.json()).toEqual({
      error: "unauthenticated",
      message: "Send an approver's token: Authorization: Bearer TOKEN.",
    });
    expect((await call("/approvals", { token: "not-a-token" })).status).toBe(401);
    // A token-less approver's name is no credential.
    expect((await call("/approvals", { token: "alice" })).status).toBe(401);

    const list = await call("/approvals", { token: TOKENS.bob });
    expect(list.status).toBe(200);
    expect(list.headers.get("cache-control")).toBe("no-store");
    const { approvals } = (await list.json()) as { approvals: Approval[] };
    expect(approvals.map((a) => a.id)).toContain(id);
    expect(approvals.find((a) => a.id === id)).toMatchObject({
      status: "pending",
      tool: "issue_refund",
      canonicalArgs: '{"amount":200,"order_id":"auth-1"}',
      argsHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      requestedBy: "agent",
      approvers: ["role:lead"],
    });

    const one = await call(`/approvals/${id}`, { token: TOKENS.carol });
    expect(one.status).toBe(200);
    expect(await one.json()).toMatchObject({ id, status: "pending" });
    const unknown = await call("/approvals/apr_unknown", { token: TOKENS.bob });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: "not_found" });
    // An unknown id is also 404 for a decision; a token is checked before anything else.
    expect((await decide("apr_unknown", TOKENS.bob, { decision: "approve" })).status).toBe(404);
    expect((await call("/approvals/apr_unknown")).status).toBe(401);
  });

  it("refuses decisions that are not allowed or not well-formed, and leaves the request pending", async () => {
    const id = await pending("refuse-1");
    const carol = await decide(id, TOKENS.carol, { decision: "approve" });
    expect(carol.status).toBe(403);
    expect(await carol.json()).toMatchObject({
      error: "forbidden",
      message: "carol may not decide this request; it needs role:lead.",
    });
    const self = await decide(id, TOKENS.agent, { decision: "approve" });
    expect(self.status).toBe(403);
    expect(await self.json()).toMatchObject({
      error: "forbidden",
      message: "agent requested this call and cannot approve or deny it.",
    });
    const malformed = await decide(id, TOKENS.bob, '{"decision": "approve"');
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ error: "invalid" });
    expect((await decide(id, TOKENS.bob, { decision: "maybe" })).status).toBe(400);
    expect((await decide(id, TOKENS.bob, { decision: "approve", scope: "forever" })).status).toBe(
      400,
    );
    const noReason = await decide(id, TOKENS.bob, { decision: "deny" });
    expect(noReason.status).toBe(400);
    expect(await noReason.json()).toMatchObject({
      message: "A denial needs a reason: it goes back to the model.",
    });
    expect((await call(`/approvals/${id}`, { token: TOKENS.bob, method: "DELETE" })).status).toBe(
      405,
    );
    expect((await store.getApproval(id))?.status).toBe("pending");
    const logs = await store.listEvents({ sessionId, callId: "refuse-1", type: "log" });
    expect(logs.map((r) => (r.event as { message: string }).message)).toEqual([
      expect.stringContaining("carol is not among role:lead"),
      expect.stringContaining("agent requested this call and cannot decide it"),
    ]);
  });

  it("answers a body over 16 KiB with 413", async () => {
    const id = await pending("large-1");
    const response = await decide(id, TOKENS.bob, {
      decision: "deny",
      reason: "x".repeat(17 * 1024),
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: "too_large" });
    expect((await store.getApproval(id))?.status).toBe("pending");
  });

  it("routes: unknown paths 404 naming the routes, other methods 405 once signed in, JSON throughout", async () => {
    const routes = "Routes: GET /approvals, GET /approvals/:id, POST /approvals/:id/decision.";
    for (const path of ["/approvals/a/b/c", "/approvals/a/other", "/elsewhere"]) {
      const response = await call(path);
      expect(response.status, path).toBe(404);
      expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
      expect(await response.json()).toEqual({ error: "not_found", message: routes });
    }
    expect((await call("/approvals/", { token: TOKENS.bob })).status).toBe(200);
    expect((await call("/approvals", { method: "POST" })).status).toBe(401);
    const post = await call("/approvals", { token: TOKENS.bob, method: "POST" });
    expect(post.status).toBe(405);
    expect(await post.json()).toEqual({
      error: "method_not_allowed",
      message: "POST is not supported here.",
    });
    const id = await pending("routes-1");
    expect((await call(`/approvals/${id}/decision`, { token: TOKENS.bob })).status).toBe(405);
    const nothing = await decide(id, TOKENS.bob, "null");
    expect(nothing.status).toBe(400);
    expect(await nothing.json()).toMatchObject({ error: "invalid" });
    expect((await store.getApproval(id))?.status).toBe("pending");
  });

  it("answers a malformed id escape with 404, not 500", async () => {
    const response = await call("/approvals/%E0", { token: TOKENS.bob });
    expect(response.status).toBe(404);
  });

  it("approves with 200 and the approval; a second decision gets 409; the call then runs", async () => {
    const id = await pending("approve-1");
    const approve = await decide(id, TOKENS.bob, { decision: "approve", reason: "checked" });
    expect(approve.status).toBe(200);
    expect(await approve.json()).toMatchObject({
      id,
      status: "approved",
      decidedBy: "bob",
      decisionReason: "checked",
      locallyAsserted: false,
      scope: "once",
    });
    const again = await decide(id, TOKENS.dave, { decision: "deny", reason: "no" });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({
      error: "conflict",
      message: `Request ${id} was already approved by bob.`,
      approval: { id, status: "approved", decidedBy: "bob" },
    });
    expect(await suspend("approve-1", { order_id: "approve-1", amount: 200 })).toMatchObject({
      status: "ok",
    });
    expect(ran).toContainEqual({ order_id: "approve-1", amount: 200 });
  });

  it("lets exactly one of two concurrent decisions win", async () => {
    const id = await pending("race-1");
    const responses = await Promise.all([
      decide(id, TOKENS.bob, { decision: "approve" }),
      decide(id, TOKENS.dave, { decision: "deny", reason: "not today" }),
    ]);
    expect(responses.map((r) => r.status).sort()).toEqual([200, 409]);
    const bodies = (await Promise.all(responses.map((r) => r.json()))) as {
      status?: string;
      decidedBy?: string;
    }[];
    const winner = bodies[responses.findIndex((r) => r.status === 200)];
    expect(await store.getApproval(id)).toMatchObject({
      status: winner?.status,
      decidedBy: winner?.decidedBy,
    });
  });

  it("reaches a run waiting in mode wait within a second", async () => {
    const wait = checkpointWith(
      createDurableApprover({ store, directory, mode: "wait", defaultApprovers: ["role:lead"] }),
    );
    const args = { order_id: "wait-1", amount: 250 };
    const running = wait("wait-1", args);
    const id = approvalIdFor(sessionId, "wait-1");
    // The run opens the request and blocks on it; nothing has run yet.
    for (let i = 0; i < 100 && !(await store.getApproval(id)); i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(ran).not.toContainEqual(args);
    const response = await decide(id, TOKENS.dave, { decision: "approve" });
    expect(response.status).toBe(200);
    const decidedAt = Date.now();
    expect(await running).toMatchObject({ status: "ok", callId: "wait-1" });
    expect(Date.now() - decidedAt).toBeLessThan(1000);
    expect(ran).toContainEqual(args);
  });

  it("pages GET /approvals newest first with a total and a cursor, past 1,000", async () => {
    const before = (await (await call("/approvals?status=all", { token: TOKENS.bob })).json()) as {
      total: number;
    };
    for (let i = 0; i < 1100; i += 1) {
      await store.createApproval({
        sessionId,
        callId: `old-${i}`,
        tool: "issue_refund",
        canonicalArgs: "{}",
        argsHash: "0".repeat(64),
        requestedBy: "agent",
        createdAt: 1_000 + i,
      });
    }
    const total = before.total + 1100;
    const ids: string[] = [];
    let path = "/approvals?status=all&limit=400";
    for (;;) {
      const res = await call(path, { token: TOKENS.bob });
      expect(res.status).toBe(200);
      const page = (await res.json()) as {
        approvals: Approval[];
        total: number;
        more: boolean;
        next?: string;
      };
      expect(page.total).toBe(total);
      expect(page.more).toBe(page.next !== undefined);
      ids.push(...page.approvals.map((a) => a.id));
      if (!page.next) break;
      path = `/approvals?status=all&limit=400&cursor=${encodeURIComponent(page.next)}`;
    }
    expect(ids.length).toBe(total);
    expect(new Set(ids).size).toBe(total);
    // Newest first: the last is the oldest request, old-0.
    const oldest = await store.listApprovals({ limit: 1 });
    expect(ids.at(-1)).toBe(oldest[0]?.id);
    for (const bad of ["status=nope", "limit=0", "limit=1001", "limit=x", "cursor=zzz"]) {
      const res = await call(`/approvals?${bad}`, { token: TOKENS.bob });
      expect(res.status, bad).toBe(400);
      expect(await res.json()).toMatchObject({ error: "invalid_filter" });
    }
  }, 60_000);
});
