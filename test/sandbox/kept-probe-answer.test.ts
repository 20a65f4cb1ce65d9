import { existsSync } from "node:fs";
import { chmod, mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinTools, createCheckpoint, createMemoryEventSink } from "../../src/index.js";
import { type ProbeMemory, probeSandboxSoon } from "../../src/sandbox/probe-sandbox.js";

// A sandbox probe's answer kept between processes (ADR 0088) can be stale. This shows what a
// stale "available" does: the command goes to bubblewrap, which cannot make the sandbox, and the
// call fails. It never runs unconfined.
let dir: string;

beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), "docket-stale-probe-")));
});

afterAll(() => rm(dir, { recursive: true, force: true }));

describe("a kept sandbox probe answer that is stale", () => {
  it("makes a sandboxed command fail, not run without the sandbox", async () => {
    // A bubblewrap that can no longer make namespaces, as after a kernel setting changed.
    const bwrapPath = join(dir, "bwrap");
    await writeFile(
      bwrapPath,
      "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n",
    );
    await chmod(bwrapPath, 0o755);
    const memory: ProbeMemory = {
      open: (path) => ({
        kept: { status: "available", bwrapPath: path, version: "" },
        keep: () => {
          throw new Error("a kept answer is not probed, so not kept again");
        },
      }),
    };
    expect((await probeSandboxSoon(bwrapPath, { version: false, memory })).status).toBe(
      "available",
    );
    const workspace = join(dir, "ws");
    await mkdir(workspace);
    const asked: unknown[] = [];
    const checkpoint = createCheckpoint({
      tools: builtinTools({ workspace, run: { sandbox: { bwrapPath, mode: "auto" } } }),
      policy: () => ({ decision: "allow", rule: "allow-all" }),
      events: createMemoryEventSink(),
      approvals: (request) => {
        asked.push(request);
        return { decision: "approve", by: "alice", reason: "fine" };
      },
    });
    const result = await checkpoint.dispatch({
      id: "stale_1",
      name: "run_command",
      arguments: JSON.stringify({ command: "touch ran-unconfined.txt" }),
    });
    expect(result.status).not.toBe("ok");
    expect(result.status === "ok" ? "" : result.message).toMatch(/exited with code 1/);
    expect(existsSync(join(workspace, "ran-unconfined.txt"))).toBe(false);
    expect(asked).toHaveLength(0);
  });
});
