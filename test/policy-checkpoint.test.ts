import { mkdtemp, realpath, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import {
  builtinTools,
  createCheckpoint,
  createMemoryEventSink,
  createPolicyEngine,
} from "../src/index.js";

let workspace: string;
beforeAll(async () => {
  workspace = await realpath(await mkdtemp(join(tmpdir(), "docket-policy-")));
  await writeFile(join(workspace, ".env"), "SECRET=1\n");
  await writeFile(join(workspace, "README.md"), "hello\n");
});

const rules = [
  { decision: "deny" as const, tool: "run_command", command: "rm *", reason: "no deletions" },
  { decision: "allow" as const, tool: "run_command", command: ["ls *", "echo *", "cat *"] },
  { decision: "deny" as const, tool: "read_file", path: "**/.env", reason: "secrets stay secret" },
];

let n = 0;
const call = (name: string, args: unknown) => ({
  id: `c${++n}`,
  name,
  arguments: JSON.stringify(args),
});

describe("the policy engine behind the checkpoint", () => {
  it("denies hidden deletions, allows honest commands, asks for the rest", async () => {
    const engine = await createPolicyEngine({ layers: [{ name: "project", rules }], workspace });
    const checkpoint = createCheckpoint({
      tools: builtinTools({ workspace }),
      policy: engine,
      events: createMemoryEventSink(),
    });
    const denied = await checkpoint.dispatch(
      call("run_command", { command: "echo hi && echo $(rm -rf x)" }),
    );
    expect(denied).toMatchObject({ status: "refused", reason: "denied" });
    expect(denied.message).toContain("no deletions");
    expect(
      await checkpoint.dispatch(call("run_command", { command: "ls -la | cat" })),
    ).toMatchObject({ status: "ok" });
    // Not covered by an allow rule: the writes default asks, and with no approver it never runs.
    expect(await checkpoint.dispatch(call("run_command", { command: "touch x" }))).toMatchObject({
      status: "refused",
      reason: "approval_required",
    });
  });

  it("judges paths for what they really are", async () => {
    const checkpoint = createCheckpoint({ tools: builtinTools({ workspace }), policy: { rules } });
    const denied = await checkpoint.dispatch(call("read_file", { path: "src/../.env" }));
    expect(denied).toMatchObject({ status: "refused", reason: "denied" });
    expect(denied.message).toContain("secrets stay secret");
    expect(await checkpoint.dispatch(call("read_file", { path: "README.md" }))).toMatchObject({
      status: "ok",
    });
  });
});
