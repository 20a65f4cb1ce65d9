import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NetworkAskRequest } from "../sandbox/network/network-connection.js";
import { openStore } from "../store/open-store.js";
import type { Store } from "../store/store.js";
import { createApproverDirectory } from "./approver-directory.js";
import { decideApproval } from "./decide-approval.js";
import {
  asInteractive,
  createDurableNetworkApprover,
  NETWORK_APPROVAL_TOOL,
} from "./durable-network-approver.js";

// A real SQLite store; the approvers decide as they would from the CLI or the API.
const directory = createApproverDirectory({ alice: { roles: ["lead"] } }, {});
let dir: string;
let store: Store;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "docket-net-approver-"));
  store = await openStore(`sqlite:${join(dir, "docket.db")}`);
});
afterAll(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const ask = (sessionId: string | undefined, port = 443): NetworkAskRequest => ({
  host: "Docs.Example.com",
  port,
  rule: "project:ask:docs.example.com",
  call: { callId: "call_1", sessionId, principal: "agent" },
});

describe("createDurableNetworkApprover", () => {
  it("refuses an ask that names no call: nothing to bind the answer to", async () => {
    const approve = createDurableNetworkApprover({ store, directory });
    const { call: _call, ...unbound } = ask(undefined);
    const answer = await approve(unbound, new AbortController().signal);
    expect(answer).toMatchObject({ approved: false });
    expect(typeof answer === "object" && answer.reason).toContain("needs the call");
  });

  it("keeps a request open as long as the proxy holds its connection", async () => {
    const session = await store.createSession({ principal: "agent", configHash: "t" });
    const approve = createDurableNetworkApprover({
      store,
      directory,
      expiresMs: 60_000,
      pollMs: 10,
    });
    const answer = await approve(
      { ...ask(session.id), timeoutMs: 200 },
      AbortSignal.timeout(2_000),
    );
    expect(answer).toMatchObject({ approved: false });
    const [queued] = await store.listApprovals({ sessionId: session.id });
    // createdAt and expiresAt are two readings of the clock: a millisecond may pass between.
    const lifetime = (queued?.expiresAt ?? 0) - (queued?.createdAt ?? 0);
    expect(lifetime).toBeGreaterThanOrEqual(200);
    expect(lifetime).toBeLessThan(250);
  });

  it("records the terminal's answer on a queued request bound to host and port", async () => {
    const session = await store.createSession({ principal: "agent", configHash: "t" });
    const terminal = async ({ host, port }: NetworkAskRequest) =>
      host === "docs.example.com" && port === 443;
    const approve = createDurableNetworkApprover({
      store,
      directory,
      defaultApprovers: ["alice"],
      interactive: asInteractive(terminal, "alice"),
    });
    const yes = await approve(ask(session.id), new AbortController().signal);
    const no = await approve(ask(session.id, 8443), new AbortController().signal);
    expect(yes).toMatchObject({ approved: true, by: "alice" });
    expect(no).toMatchObject({ approved: false, by: "alice" });
    const queued = await store.listApprovals({ sessionId: session.id });
    expect(queued.map((a) => [a.tool, a.canonicalArgs, a.status, a.decidedBy])).toEqual(
      expect.arrayContaining([
        [NETWORK_APPROVAL_TOOL, '{"host":"docs.example.com","port":443}', "approved", "alice"],
        [NETWORK_APPROVAL_TOOL, '{"host":"docs.example.com","port":8443}', "denied", "alice"],
      ]),
    );
  });

  it("lets a session grant cover later connections to the same host and port only", async () => {
    const session = await store.createSession({ principal: "agent", configHash: "t" });
    const approve = createDurableNetworkApprover({
      store,
      directory,
      defaultApprovers: ["alice"],
      pollMs: 10,
      onPending: (approval) =>
        void decideApproval(store, directory, {
          approvalId: approval.id,
          decision: "approve",
          scope: "session",
          claim: { name: "alice" },
          terminal: true,
        }),
    });
    const first = await approve(ask(session.id), new AbortController().signal);
    expect(first).toMatchObject({ approved: true, approvalId: expect.stringMatching(/^apr_/) });
    const again = await approve(ask(session.id), new AbortController().signal);
    expect(again).toEqual({ approved: true, by: "alice" });
    // The grant answered the second: no new request was queued for it.
    expect(await store.listApprovals({ sessionId: session.id })).toHaveLength(1);
    await approve(ask(session.id, 8443), new AbortController().signal);
    expect(await store.listApprovals({ sessionId: session.id })).toHaveLength(2);
  });
});
