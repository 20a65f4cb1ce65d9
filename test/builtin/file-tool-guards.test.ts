import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  builtinTools,
  createCheckpoint,
  createMemoryEventSink,
  createPolicyEngine,
  type PolicyRuleSpec,
  renderResult,
  type ToolResult,
} from "../../src/index.js";

// Real files, a real git repository and the real policy engine: what a file tool may touch is
// decided in one place, whoever built the tools and whatever the policy allows.
let workspace: string;
let n = 0;

beforeEach(async () => {
  workspace = await realpath(await mkdtemp(join(tmpdir(), "docket-file-guards-")));
  execFileSync("git", ["init", "-q", workspace]);
  await mkdir(join(workspace, "app"));
  await writeFile(join(workspace, "app", ".env"), "API_KEY=sk-live-4711\n");
  await writeFile(join(workspace, "app", "main.ts"), "const API_KEY = process.env.API_KEY;\n");
});

afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

async function library(rules: PolicyRuleSpec[]) {
  const policy = await createPolicyEngine({ layers: [{ name: "project", rules }], workspace });
  return createCheckpoint({
    tools: builtinTools({ workspace, policy, run: { sandbox: { mode: "off" } } }),
    policy,
    events: createMemoryEventSink(),
  });
}

async function call(
  checkpoint: Awaited<ReturnType<typeof library>>,
  name: string,
  args: unknown,
): Promise<{ result: ToolResult; text: string }> {
  const result = await checkpoint.dispatch({
    id: `call_${++n}`,
    name,
    arguments: JSON.stringify(args),
  });
  return { result, text: renderResult(result) };
}

const allowAll: PolicyRuleSpec = { decision: "allow", tool: "*" };
const denyEnv: PolicyRuleSpec = {
  decision: "deny",
  tool: ["read_file", "search_files"],
  path: "**/.env",
  reason: "secrets stay secret",
};

describe("deny rules reach every file tool of builtinTools built by a library user", () => {
  it("keeps .env lines out of search_files, .env out of list_files, and refuses its read", async () => {
    const checkpoint = await library([allowAll, denyEnv]);
    const search = await call(checkpoint, "search_files", { pattern: "API_KEY" });
    expect(search.result.status).toBe("ok");
    expect(search.text).toContain("main.ts");
    expect(search.text).not.toContain("sk-live-4711");
    const list = await call(checkpoint, "list_files", { path: "app" });
    expect(list.text).toContain("main.ts");
    expect(list.text).not.toMatch(/^\S*\.env\b/m);
    // Through a link the path rule does not name, the file the link leads to is still denied.
    await symlink(join(workspace, "app", ".env"), join(workspace, "settings.txt"));
    const read = await call(checkpoint, "read_file", { path: "settings.txt" });
    expect(read.result.status).not.toBe("ok");
    expect(read.text).not.toContain("sk-live-4711");
  });

  it("still shows .env when no rule denies it", async () => {
    const checkpoint = await library([allowAll]);
    const search = await call(checkpoint, "search_files", { pattern: "API_KEY" });
    expect(search.text).toContain("sk-live-4711");
  });
});

describe("the file tools refuse version-control metadata under any policy", () => {
  const hook = "#!/bin/sh\ntouch /tmp/docket-planted\n";

  it("refuses write_file and edit_file into .git, even when every rule allows", async () => {
    const checkpoint = await library([allowAll]);
    for (const file of [
      ".git/hooks/pre-commit",
      ".git/config",
      ".git/commondir",
      ".git/info/attributes",
    ]) {
      const { result, text } = await call(checkpoint, "write_file", { path: file, content: hook });
      expect(result.status, file).toBe("failed");
      expect(text).toContain("git would run or load");
    }
    const edit = await call(checkpoint, "edit_file", {
      path: ".git/config",
      old_string: "[core]",
      new_string: "[core]\n\tfsmonitor = touch /tmp/docket-planted",
    });
    expect(edit.result.status).toBe("failed");
    expect(readFileSync(join(workspace, ".git", "config"), "utf8")).not.toContain("fsmonitor");
    expect(existsSync(join(workspace, ".git", "hooks", "pre-commit"))).toBe(false);
  });

  it("refuses a hooks path in the workspace, an included file, a .git file and a nested repository", async () => {
    execFileSync("git", ["-C", workspace, "config", "core.hooksPath", ".husky"]);
    execFileSync("git", ["-C", workspace, "config", "include.path", "../team.gitconfig"]);
    await writeFile(join(workspace, "team.gitconfig"), "");
    await mkdir(join(workspace, "lib"));
    await writeFile(join(workspace, "lib", ".git"), "gitdir: ../.git/modules/lib\n");
    execFileSync("git", ["init", "-q", join(workspace, "deep", "er")]);
    const checkpoint = await library([allowAll]);
    for (const file of [
      ".husky/pre-commit",
      "team.gitconfig",
      "lib/.git",
      "deep/er/.git/config",
      ".GIT/hooks/x",
    ]) {
      const { result } = await call(checkpoint, "write_file", { path: file, content: hook });
      expect(result.status, file).toBe("failed");
    }
    // Ordinary files still write.
    const ok = await call(checkpoint, "write_file", { path: "app/new.ts", content: "x\n" });
    expect(ok.result.status).toBe("ok");
  });

  it("writes one only where a rule allows the tool on exactly that path, never through a glob", async () => {
    const glob = await library([{ decision: "allow", tool: "write_file", path: ".git/**" }]);
    expect(
      (await call(glob, "write_file", { path: ".git/info/exclude", content: "x\n" })).result.status,
    ).toBe("failed");
    const exact = await library([
      { decision: "allow", tool: "write_file", path: ".git/info/exclude" },
    ]);
    expect(
      (await call(exact, "write_file", { path: ".git/info/exclude", content: "dist/\n" })).result
        .status,
    ).toBe("ok");
    expect(readFileSync(join(workspace, ".git", "info", "exclude"), "utf8")).toBe("dist/\n");
    // The exact rule names one path for one tool: not edit_file, not another file.
    expect(
      (await call(exact, "write_file", { path: ".git/config", content: "x\n" })).result.status,
    ).not.toBe("ok");
  });

  it("holds for builtinTools without any policy", async () => {
    const checkpoint = createCheckpoint({
      tools: builtinTools({ workspace }),
      policy: () => ({ decision: "allow" as const, rule: "allow-all" }),
      events: createMemoryEventSink(),
    });
    const result = await checkpoint.dispatch({
      id: "call_plain",
      name: "write_file",
      arguments: JSON.stringify({ path: ".git/hooks/post-checkout", content: hook }),
    });
    expect(result.status).toBe("failed");
  });
});
