import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ApprovalRequest,
  builtinTools,
  createCheckpoint,
  createMemoryEventSink,
} from "../../src/index.js";
import type { SandboxSettings } from "../../src/sandbox/sandbox-settings.js";

// run_command where bubblewrap is missing (a path that does not exist): the sandbox modes decide
// what happens instead. The sandbox itself is proven in run-command-sandbox.test.ts.
let workspace: string;

beforeAll(async () => {
  workspace = await realpath(await mkdtemp(join(tmpdir(), "docket-nosbx-ws-")));
  await writeFile(join(workspace, "readme.txt"), "hello\n");
});

afterAll(() => rm(workspace, { recursive: true, force: true }));

const allowAll = () => ({ decision: "allow" as const, rule: "allow-all" });

describe("sandbox modes where no sandbox is available", () => {
  const missing: SandboxSettings = { bwrapPath: "/nonexistent/bwrap" };

  it("auto turns a rule's allow into ask, and the prompt says not sandboxed", async () => {
    const asked: ApprovalRequest[] = [];
    const checkpoint = createCheckpoint({
      tools: builtinTools({ workspace, run: { sandbox: { ...missing, mode: "auto" } } }),
      policy: allowAll,
      events: createMemoryEventSink(),
      approvals: (request) => {
        asked.push(request);
        return { decision: "deny", by: "alice", reason: "not now" };
      },
    });
    const result = await checkpoint.dispatch({
      id: "auto_1",
      name: "run_command",
      arguments: JSON.stringify({ command: "touch ran-unconfined.txt" }),
    });
    expect(result.status).toBe("refused");
    expect(asked).toHaveLength(1);
    expect(asked[0]?.verdict.decision).toBe("ask");
    expect(asked[0]?.verdict.reason).toMatch(
      /^not sandboxed: bubblewrap \(\/nonexistent\/bwrap\) is not installed/,
    );
    // Other tools keep their verdicts.
    const read = await checkpoint.dispatch({
      id: "auto_2",
      name: "read_file",
      arguments: '{"path":"readme.txt"}',
    });
    expect(read.status).toBe("ok");
  });

  it("auto without a sandbox, approved by a human, still never passes docket's own variables", async () => {
    process.env.DOCKET_TOKEN = "docket-token-4712";
    try {
      const checkpoint = createCheckpoint({
        tools: builtinTools({
          workspace,
          run: { sandbox: { ...missing, mode: "auto", env: ["DOCKET_TOKEN"] } },
        }),
        policy: allowAll,
        events: createMemoryEventSink(),
        approvals: () => ({ decision: "approve", by: "alice", reason: "fine" }),
      });
      const result = await checkpoint.dispatch({
        id: "auto_env",
        name: "run_command",
        arguments: JSON.stringify({ command: "env; echo ran" }),
      });
      const text = result.status === "ok" ? String(result.output) : result.message;
      expect(result.status).not.toBe("ok");
      expect(text).toContain("DOCKET_TOKEN");
      expect(text).not.toContain("docket-token-4712");
    } finally {
      delete process.env.DOCKET_TOKEN;
    }
  });

  it("required refuses run_command with the reason, without asking anyone", async () => {
    let asked = 0;
    const checkpoint = createCheckpoint({
      tools: builtinTools({ workspace, run: { sandbox: { ...missing, mode: "required" } } }),
      policy: allowAll,
      events: createMemoryEventSink(),
      approvals: () => {
        asked += 1;
        return { decision: "approve", by: "alice" };
      },
    });
    const result = await checkpoint.dispatch({
      id: "req_1",
      name: "run_command",
      arguments: JSON.stringify({ command: "touch ran-required.txt" }),
    });
    expect(result).toMatchObject({ status: "refused", reason: "denied" });
    expect(result.status === "refused" && result.message).toMatch(
      /sandbox\.mode is required, but bubblewrap \(\/nonexistent\/bwrap\) is not installed/,
    );
    expect(asked).toBe(0);
  });
});
