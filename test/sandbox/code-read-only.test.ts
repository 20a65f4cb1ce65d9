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
import { docketCodeDirs } from "../../src/protect/docket-code-dir.js";
import { probeSandbox } from "../../src/sandbox/probe-sandbox.js";
import type { SandboxSettings } from "../../src/sandbox/sandbox-settings.js";

// Real bubblewrap: docket's installed code inside the workspace (node_modules, which holds the
// packages it loads and its `.bin/docket` launcher too) is mounted read-only, and the folders
// above it are pinned, so a command can neither edit it nor rename it away and put a writable
// copy in its place.

const available = probeSandbox().status === "available";
let parent: string;
let workspace: string;
let modules: string;

beforeAll(async () => {
  parent = await realpath(await mkdtemp(join(tmpdir(), "docket-code-ro-")));
  workspace = join(parent, "ws");
  modules = join(workspace, "node_modules");
  const pkg = async (name: string, dependencies: Record<string, string> = {}) => {
    await mkdir(join(modules, name), { recursive: true });
    await writeFile(join(modules, name, "package.json"), JSON.stringify({ name, dependencies }));
  };
  await pkg("docket", { "web-tree-sitter": "1" });
  await pkg("web-tree-sitter");
  await pkg("left-pad");
  await mkdir(join(modules, "docket", "dist"));
  await mkdir(join(modules, ".bin"));
  await writeFile(join(modules, "docket", "dist", "index.js"), "export const honest = true;\n");
  await writeFile(join(modules, ".bin", "docket"), "#!/bin/sh\n");
  await writeFile(join(modules, "web-tree-sitter", "web-tree-sitter.js"), "// parser\n");
});

afterAll(async () => {
  await rm(parent, { recursive: true, force: true });
});

async function run(command: string, sandbox: SandboxSettings): Promise<string> {
  const checkpoint = createCheckpoint({
    tools: builtinTools({ workspace, run: { sandbox } }),
    policy: () => ({ decision: "allow" as const, rule: "allow-all" }),
    events: createMemoryEventSink(),
  });
  const result = await checkpoint.dispatch({
    id: "call_1",
    name: "run_command",
    arguments: JSON.stringify({ command, timeout_ms: 20_000 }),
  });
  return renderResult(result);
}

async function unchanged(): Promise<void> {
  expect(await readFile(join(modules, "docket", "dist", "index.js"), "utf8")).toBe(
    "export const honest = true;\n",
  );
  expect(await readFile(join(modules, ".bin", "docket"), "utf8")).toBe("#!/bin/sh\n");
  expect(await readFile(join(modules, "web-tree-sitter", "web-tree-sitter.js"), "utf8")).toBe(
    "// parser\n",
  );
}

describe.skipIf(!available)("docket's installed code in the sandbox", () => {
  it("reads, but cannot be written, deleted, or renamed away with its parents", async () => {
    const readOnly = docketCodeDirs(join(modules, "docket"), workspace);
    expect(readOnly.sort()).toEqual(
      ["docket", "web-tree-sitter", ".bin"].map((name) => join(modules, name)).sort(),
    );
    const text = await run(
      [
        "cat node_modules/docket/dist/index.js",
        "echo 'export const honest = false;' > node_modules/docket/dist/index.js || echo write-refused",
        "rm -f node_modules/docket/dist/index.js 2>/dev/null || echo delete-refused",
        "rm -rf node_modules/.bin 2>/dev/null || echo launcher-refused",
        "echo evil >> node_modules/web-tree-sitter/web-tree-sitter.js || echo dependency-refused",
        "mv node_modules/docket node_modules/old 2>/dev/null || echo move-refused",
        "mv node_modules nm 2>/dev/null || echo parent-move-refused",
        "echo fine > other.txt && echo other-written",
        // The project's own packages and node_modules' caches stay writable.
        "echo x > node_modules/left-pad/index.js && echo package-written",
        "mkdir -p node_modules/.cache/vitest && echo {} > node_modules/.cache/vitest/r.json && echo cache-written",
      ].join("; "),
      { readOnly },
    );
    expect(text).toContain("honest = true");
    for (const word of [
      "write-refused",
      "delete-refused",
      "launcher-refused",
      "dependency-refused",
      "move-refused",
      "parent-move-refused",
      "other-written",
      "package-written",
      "cache-written",
    ]) {
      expect(text).toContain(word);
    }
    await unchanged();
    expect(await readFile(join(workspace, "other.txt"), "utf8")).toBe("fine\n");
  });

  it("with a writable folder above the workspace, the workspace itself cannot be renamed away", async () => {
    const readOnly = docketCodeDirs(join(modules, "docket"), workspace);
    const text = await run(
      [
        "cd ..",
        "mv ws ws2 2>/dev/null || echo workspace-move-refused",
        "mkdir -p ws/node_modules/docket/dist 2>/dev/null; echo evil > ws/node_modules/docket/dist/index.js || echo write-refused",
        "echo fine > beside.txt && echo parent-written",
      ].join("; "),
      { readOnly, writable: [parent] },
    );
    expect(text).toContain("workspace-move-refused");
    expect(text).toContain("write-refused");
    expect(text).toContain("parent-written");
    await unchanged();
  });
});
