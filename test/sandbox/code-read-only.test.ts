import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  builtinTools,
  createCheckpoint,
  createMemoryEventSink,
  renderResult,
} from "../../src/index.js";
import { probeSandbox } from "../../src/sandbox/probe-sandbox.js";

// Real bubblewrap: docket's installed code inside the workspace is mounted read-only, and the
// folders above it are pinned, so a command can neither edit it nor rename it away and put a
// writable copy in its place.

const available = probeSandbox().status === "available";
let workspace: string;
let code: string;

beforeAll(async () => {
  workspace = await realpath(await mkdtemp(join(tmpdir(), "docket-code-ro-")));
  code = join(workspace, "node_modules", "docket");
  await mkdir(join(code, "dist"), { recursive: true });
  await writeFile(join(code, "dist", "index.js"), "export const honest = true;\n");
});

afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

describe.skipIf(!available)("docket's installed code in the sandbox", () => {
  it("reads, but cannot be written, deleted, or renamed away with its parents", async () => {
    const checkpoint = createCheckpoint({
      tools: builtinTools({ workspace, run: { sandbox: { readOnly: [code] } } }),
      policy: () => ({ decision: "allow" as const, rule: "allow-all" }),
      events: createMemoryEventSink(),
    });
    const command = [
      "cat node_modules/docket/dist/index.js",
      "echo 'export const honest = false;' > node_modules/docket/dist/index.js || echo write-refused",
      "rm -f node_modules/docket/dist/index.js 2>/dev/null || echo delete-refused",
      "mv node_modules/docket node_modules/old 2>/dev/null || echo move-refused",
      "mv node_modules nm 2>/dev/null || echo parent-move-refused",
      "echo fine > other.txt && echo other-written",
    ].join("; ");
    const result = await checkpoint.dispatch({
      id: "call_1",
      name: "run_command",
      arguments: JSON.stringify({ command, timeout_ms: 20_000 }),
    });
    const text = renderResult(result);
    expect(text).toContain("honest = true");
    for (const word of [
      "write-refused",
      "delete-refused",
      "move-refused",
      "parent-move-refused",
      "other-written",
    ]) {
      expect(text).toContain(word);
    }
    expect(await readFile(join(code, "dist", "index.js"), "utf8")).toBe(
      "export const honest = true;\n",
    );
    expect(await readFile(join(workspace, "other.txt"), "utf8")).toBe("fine\n");
  });
});
