import { execFileSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { initialConfig } from "../../src/cli/commands/init-command.js";
import { detectProjectChecks } from "../../src/cli/commands/project-checks.js";
import { loadPolicyFiles } from "../../src/config/load-policy-files.js";
import {
  builtinTools,
  createCheckpoint,
  createMemoryEventSink,
  createPolicyEngine,
  renderResult,
} from "../../src/index.js";
import { probeSandbox } from "../../src/sandbox/probe-sandbox.js";
import { call } from "../policy/support/policy-request.js";
import { runInSandbox } from "../support/run-in-sandbox.js";

// Real bubblewrap and real git: each case plants by its own route inside the sandbox, then runs
// the user's next git OUTSIDE it, where a planted command would leave the marker.
const available = probeSandbox().status === "available";

let root: string;
let workspace: string;
let marker: string;
let n = 0;

// The user's own git, outside any sandbox, with no global configuration of the test machine.
function userGit(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_AUTHOR_NAME: "u",
      GIT_AUTHOR_EMAIL: "u@e",
      GIT_COMMITTER_NAME: "u",
      GIT_COMMITTER_EMAIL: "u@e",
    },
  });
}

const run = async (command: string) => (await runInSandbox(workspace, command)).text;

// What a planted command does: leave the marker (git passes its own arguments after it).
const plant = () => `touch ${marker}`;

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "docket-git-meta-")));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

beforeEach(async () => {
  workspace = join(root, `ws-${++n}`);
  marker = join(root, `marker-${n}`);
  await mkdir(workspace);
  userGit(workspace, "init", "-q");
  await writeFile(join(workspace, "a.txt"), "one\n");
  userGit(workspace, "add", "a.txt");
  userGit(workspace, "commit", "-q", "-m", "first");
});

// Every route ends the same way: the user's next status and commit, outside, run nothing planted.
function userWorkRunsNothing(cwd = workspace): void {
  userGit(cwd, "status");
  try {
    userGit(cwd, "commit", "-q", "--allow-empty", "-m", "user");
  } catch {
    // A repository the sweep took the configuration of may refuse the commit: nothing ran.
  }
  expect(existsSync(marker)).toBe(false);
}

describe.skipIf(!available)(
  "the sandbox keeps version-control metadata out of the agent's reach",
  () => {
    it("moves aside a .git/commondir that would load another git directory's configuration", async () => {
      const text = await run(
        [
          "mkdir -p stash && cp -r .git/. stash/",
          `printf '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = "${plant()}"\\n' > stash/config`,
          "echo ../stash > .git/commondir && echo planted",
        ].join(" && "),
      );
      expect(text).toContain("planted");
      expect(text).toContain("commondir");
      expect(existsSync(join(workspace, ".git", "commondir"))).toBe(false);
      userWorkRunsNothing();
    });

    it("keeps a hooks path that names a workspace folder (.husky) read-only", async () => {
      await mkdir(join(workspace, ".husky"));
      userGit(workspace, "config", "core.hooksPath", ".husky");
      const text = await run(
        `printf '#!/bin/sh\\n${plant()}\\n' > .husky/pre-commit && chmod +x .husky/pre-commit && echo planted || echo refused`,
      );
      expect(text).toContain("refused");
      userWorkRunsNothing();
    });

    it("moves aside a hooks path folder missing at the start and made by the command", async () => {
      userGit(workspace, "config", "core.hooksPath", ".githooks");
      const text = await run(
        `mkdir .githooks && printf '#!/bin/sh\\n${plant()}\\n' > .githooks/pre-commit && chmod +x .githooks/pre-commit && echo planted`,
      );
      expect(text).toContain("planted");
      expect(existsSync(join(workspace, ".githooks"))).toBe(false);
      userWorkRunsNothing();
    });

    it("keeps a file the configuration includes read-only", async () => {
      await writeFile(join(workspace, "team.gitconfig"), "[user]\n\tname = team\n");
      userGit(workspace, "config", "include.path", "../team.gitconfig");
      const text = await run(
        `printf '[core]\\n\\tfsmonitor = "${plant()}"\\n' >> team.gitconfig && echo planted || echo refused`,
      );
      expect(text).toContain("refused");
      userWorkRunsNothing();
    });

    it("moves aside a hooks folder that was missing when the sandbox started", async () => {
      await rm(join(workspace, ".git", "hooks"), { recursive: true, force: true });
      const text = await run(
        `mkdir .git/hooks && printf '#!/bin/sh\\n${plant()}\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit && echo planted`,
      );
      expect(text).toContain("planted");
      userWorkRunsNothing();
    });

    it("guards a submodule's .git file and the git directory it names", async () => {
      const sub = join(workspace, "lib");
      const gitDir = join(workspace, ".git", "modules", "lib");
      await mkdir(sub);
      await mkdir(join(workspace, ".git", "modules"));
      userGit(workspace, "init", "-q", "--separate-git-dir", gitDir, sub);
      const text = await run(
        [
          `(printf '#!/bin/sh\\n${plant()}\\n' > .git/modules/lib/hooks/pre-commit && echo hook-planted || echo hook-refused)`,
          `(printf '[core]\\n\\tfsmonitor = "${plant()}"\\n' >> .git/modules/lib/config && echo config-planted || echo config-refused)`,
          `(mkdir -p evil && cp -r .git/modules/lib/. evil/ && printf '[core]\\n\\tfsmonitor = "${plant()}"\\n' >> evil/config; echo 'gitdir: ../evil' > lib/.git && echo repointed || echo repoint-refused)`,
        ].join("; "),
      );
      expect(text).toContain("hook-refused");
      expect(text).toContain("config-refused");
      expect(text).toContain("repoint-refused");
      userWorkRunsNothing(sub);
    });

    it("guards a repository nested deep in the workspace", async () => {
      const deep = join(workspace, "a", "b", "c");
      await mkdir(deep, { recursive: true });
      userGit(deep, "init", "-q");
      const text = await run(
        `printf '[core]\\n\\tfsmonitor = "${plant()}"\\n' >> a/b/c/.git/config && echo planted || echo refused; (mv a a2 && echo moved || echo move-refused)`,
      );
      expect(text).toContain("refused");
      expect(text).toContain("move-refused");
      userWorkRunsNothing(deep);
    });

    it("takes the configuration and hooks of a repository the command made", async () => {
      const text = await run(
        [
          "git init -q fresh",
          `git -C fresh config core.fsmonitor "${plant()}"`,
          `printf '#!/bin/sh\\n${plant()}\\n' > fresh/.git/hooks/pre-commit && chmod +x fresh/.git/hooks/pre-commit`,
          "echo planted",
        ].join(" && "),
      );
      expect(text).toContain("planted");
      expect(text).toContain("core.fsmonitor");
      userWorkRunsNothing(join(workspace, "fresh"));
    });

    it("takes a repository planted under node_modules and linked into the index without .gitmodules", async () => {
      const text = await run(
        [
          "mkdir -p node_modules/pkg && git init -q node_modules/pkg",
          "git -C node_modules/pkg -c user.name=t -c user.email=t@e commit -q --allow-empty -m x",
          `git -C node_modules/pkg config core.fsmonitor "${plant()}"`,
          "git update-index --add --cacheinfo 160000,$(git -C node_modules/pkg rev-parse HEAD),node_modules/pkg",
          "echo planted",
        ].join(" && "),
      );
      expect(text).toContain("planted");
      expect(text).toContain("core.fsmonitor");
      userWorkRunsNothing();
    });

    it("takes a git directory a new .git file names", async () => {
      const text = await run(
        [
          "mkdir -p linked && git init -q --bare .hidden-gitdir",
          `git --git-dir=.hidden-gitdir config core.fsmonitor "${plant()}"`,
          "git --git-dir=.hidden-gitdir config core.bare false",
          "echo 'gitdir: ../.hidden-gitdir' > linked/.git && echo planted",
        ].join(" && "),
      );
      expect(text).toContain("planted");
      userWorkRunsNothing(join(workspace, "linked"));
    });

    it("holds under docket init's policy, where an allowed npm test runs a test file that plants", async () => {
      await writeFile(
        join(workspace, "package.json"),
        JSON.stringify({ name: "victim", version: "1.0.0", scripts: { test: "sh plant.test.sh" } }),
      );
      // What `docket init` writes for this project: its npm test allowed, since it runs contained.
      const config = join(root, `init-${n}`);
      await mkdir(config);
      await writeFile(
        join(config, "docket.yaml"),
        initialConfig({ checks: detectProjectChecks(workspace) }),
      );
      const layers = loadPolicyFiles({ projectFile: join(config, "docket.yaml"), env: {} });
      const policy = await createPolicyEngine({ layers, workspace });
      await writeFile(
        join(workspace, "plant.test.sh"),
        [
          `printf '#!/bin/sh\n${plant()}\n' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit`,
          `printf '[core]\n\tfsmonitor = "${plant()}"\n' >> .git/config`,
          "mkdir -p stash && cp -r .git/. stash/ 2>/dev/null",
          `printf '[core]\n\trepositoryformatversion = 0\n\tfsmonitor = "${plant()}"\n' > stash/config`,
          "echo ../stash > .git/commondir",
          "echo tests-passed",
        ].join("\n"),
      );
      const verdict = await policy.decide(call("run_command", { command: "npm test" }));
      expect(verdict.decision).toBe("allow");
      const checkpoint = createCheckpoint({
        tools: builtinTools({ workspace, policy, run: { sandbox: {} } }),
        policy,
        events: createMemoryEventSink(),
      });
      const result = await checkpoint.dispatch({
        id: `call_${++n}`,
        name: "run_command",
        arguments: JSON.stringify({ command: "npm test" }),
      });
      expect(renderResult(result)).toContain("tests-passed");
      userWorkRunsNothing();
    });

    it("still lets ordinary git work succeed inside: add, commit, branch, checkout, stash, diff, log, rebase", async () => {
      const id = "-c user.name=t -c user.email=t@e";
      const text = await run(
        [
          "echo two >> a.txt && git add a.txt",
          `git ${id} commit -q -m second`,
          "git branch topic && git checkout -q topic",
          `echo three > b.txt && git add b.txt && git ${id} commit -q -m third`,
          "git checkout -q - && echo four >> a.txt",
          "git stash -q && git stash pop -q",
          "git diff --stat > /dev/null && git log --oneline > /dev/null",
          `git ${id} commit -q -am fourth && git checkout -q topic && git ${id} rebase -q -`,
          "git log --oneline | wc -l",
          "echo all-done",
        ].join(" && "),
      );
      expect(text).toContain("all-done");
      expect(userGit(workspace, "log", "--oneline", "topic").trim().split("\n")).toHaveLength(4);
      // Nothing was moved aside: ordinary work leaves nothing behind to sweep.
      expect(
        readdirSync(join(workspace, ".git")).some((name) => name.includes("from-sandbox")),
      ).toBe(false);
    });
  },
);
