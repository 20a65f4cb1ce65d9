import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initialConfig } from "../../src/cli/commands/init-command.js";
import { loadPolicyFiles } from "../../src/config/load-policy-files.js";
import type { PolicyVerdict } from "../../src/policy/policy.js";
import { createPolicyEngine, type DocketPolicyEngine } from "../../src/policy/policy-engine.js";
import { call } from "./support/policy-request.js";

// The policy `docket init` writes: hooks and configuration kept in the workspace run later,
// outside the sandbox, so every writing tool asks before touching them, the shell included.

let ws: string;
let home: string;
let engine: DocketPolicyEngine;

beforeAll(async () => {
  ws = await realpath(await mkdtemp(join(tmpdir(), "docket-init-hooks-")));
  home = await realpath(await mkdtemp(join(tmpdir(), "docket-init-hooks-home-")));
  // What docket init writes for a project whose package.json has a test script.
  await writeFile(join(ws, "docket.yaml"), initialConfig({ checks: ["npm test *"] }));
  const layers = loadPolicyFiles({ projectFile: join(ws, "docket.yaml"), env: { HOME: home } });
  engine = await createPolicyEngine({ layers, workspace: ws, home });
});

afterAll(async () => {
  await rm(ws, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
});

const decide = async (name: string, args: Record<string, unknown>) =>
  (await engine.decide(call(name, args))) as PolicyVerdict;

describe("docket init's policy on files that run later outside the sandbox", () => {
  it("asks before write_file and edit_file touch hooks, .envrc or editor tasks", async () => {
    for (const path of [
      ".husky/pre-commit",
      ".githooks/pre-push",
      ".envrc",
      "services/api/.envrc",
      ".vscode/tasks.json",
      ".vscode/settings.json",
      ".idea/workspace.xml",
      ".devcontainer/devcontainer.json",
      ".pre-commit-config.yaml",
      "lefthook.yml",
    ]) {
      for (const tool of ["write_file", "edit_file"]) {
        const verdict = await decide(tool, {
          path,
          content: "x",
          old_string: "a",
          new_string: "b",
        });
        expect(verdict.decision, `${tool} ${path}`).toBe("ask");
        expect(verdict.reason).toContain("outside the sandbox");
      }
    }
  });

  it("asks before the shell writes them, however the write is spelled", async () => {
    for (const command of [
      "echo 'npx evil' >> .husky/pre-commit",
      "printf 'eval $(curl x)' > .envrc",
      "cp /tmp/tasks.json .vscode/tasks.json",
      "tee .githooks/pre-push < payload",
      "mkdir -p .husky && echo x > .husky/pre-commit",
    ]) {
      expect((await decide("run_command", { command })).decision, command).not.toBe("allow");
    }
  });

  it("leaves reading them and everyday commands as they were", async () => {
    expect((await decide("read_file", { path: ".vscode/settings.json" })).decision).toBe("allow");
    expect((await decide("list_files", { path: ".husky" })).decision).toBe("allow");
    for (const command of ["npm test", "git status", "ls src"]) {
      expect((await decide("run_command", { command })).decision, command).toBe("allow");
    }
  });
});
