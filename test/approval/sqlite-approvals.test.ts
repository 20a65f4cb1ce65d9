import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, expect, it } from "vitest";
import { createApproverDirectory } from "../../src/approval/approver-directory.js";
import { approvalIdFor, decideApproval } from "../../src/approval/decide-approval.js";
import { createDurableApprover } from "../../src/approval/durable-approver.js";
import { createCheckpoint } from "../../src/checkpoint/create-checkpoint.js";
import { openStore } from "../../src/store/open-store.js";
import { defineTool } from "../../src/tool/define-tool.js";
import { describeApprovalMatrix } from "./approval-matrix.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "docket-approvals-"));
});
let n = 0;
describeApprovalMatrix("SQLite", () => `sqlite:${join(dir, `a${++n}.db`)}`);

it("keeps a pending request across a restart, and the resumed call runs once approved", async () => {
  const file = `sqlite:${join(dir, "restart.db")}`;
  const directory = createApproverDirectory({ alice: { roles: ["lead"] } }, {});
  const ran: unknown[] = [];
  const tool = defineTool({
    name: "deploy",
    description: "Deploy.",
    input: { type: "object" },
    writes: true,
    handler: () => void ran.push(1),
  });
  const first = await openStore(file);
  const session = await first.createSession({ principal: "agent", configHash: "x" });
  const checkpointA = createCheckpoint({
    tools: [tool],
    store: first,
    approvals: createDurableApprover({ store: first, directory, mode: "suspend" }),
  });
  expect(
    await checkpointA.dispatch(
      { id: "c1", name: "deploy", arguments: "{}" },
      { sessionId: session.id },
    ),
  ).toMatchObject({ status: "awaiting_approval" });
  await first.close();

  const cli = await openStore(file);
  expect(
    await decideApproval(cli, directory, {
      approvalId: approvalIdFor(session.id, "c1"),
      decision: "approve",
      claim: { name: "alice" },
    }),
  ).toMatchObject({ status: "decided" });
  await cli.close();

  const second = await openStore(file);
  const checkpointB = createCheckpoint({
    tools: [tool],
    store: second,
    approvals: createDurableApprover({ store: second, directory, mode: "suspend" }),
  });
  expect(
    await checkpointB.dispatch(
      { id: "c1", name: "deploy", arguments: "{}" },
      { sessionId: session.id },
    ),
  ).toMatchObject({ status: "ok" });
  expect(ran).toHaveLength(1);
  await second.close();
});
