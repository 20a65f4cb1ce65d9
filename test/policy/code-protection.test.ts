import { existsSync } from "node:fs";
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { docketProtection } from "../../src/cli/docket-protection.js";
import { packageRoot } from "../../src/cli/package-root.js";
import type { PolicyVerdict } from "../../src/policy/policy.js";
import { createPolicyEngine, type DocketPolicyEngine } from "../../src/policy/policy-engine.js";
import { SELF_PROTECTION_RULE } from "../../src/policy/self-protection-vote.js";
import { docketCodeDirs, installedInWorkspace } from "../../src/protect/docket-code-dir.js";
import { docketOwnFiles } from "../../src/protect/docket-own-files.js";
import { runtimeOwnFiles } from "../../src/protect/runtime-own-files.js";
import { call as callOf, turn, writeScriptFile } from "../loop/support/model-script.js";
import { jsonLines, runDocketIn } from "../loop/support/run-child.js";
import { tempDir } from "../loop/support/temp-dir.js";
import { call } from "./support/policy-request.js";

// docket installed in the project (node_modules/docket) lies inside the workspace the tools may
// write: whatever an agent wrote there would run as docket next time. No policy may allow it.

let ws: string;
let engine: DocketPolicyEngine;
const allowEverything = [
  { name: "managed", rules: [{ decision: "allow" as const, tool: "*", reason: "allow all" }] },
];

/**
 * A project with docket installed: docket depends on web-tree-sitter, which depends on
 * wasm-helper; left-pad is the project's own; `.bin/docket` is the launcher.
 */
async function installFixture(project: string): Promise<void> {
  const modules = join(project, "node_modules");
  const pkg = async (name: string, dependencies: Record<string, string> = {}) => {
    await mkdir(join(modules, name), { recursive: true });
    await writeFile(join(modules, name, "package.json"), JSON.stringify({ name, dependencies }));
  };
  await pkg("docket", { "web-tree-sitter": "1" });
  await pkg("web-tree-sitter", { "wasm-helper": "1" });
  await pkg("wasm-helper");
  await pkg("left-pad");
  await writeFile(join(modules, "web-tree-sitter", "web-tree-sitter.js"), "//\n");
  await mkdir(join(modules, ".bin"));
  await symlink("../docket/dist/index.js", join(modules, ".bin", "docket"));
}

beforeAll(async () => {
  ws = await realpath(await mkdtemp(join(tmpdir(), "docket-code-")));
  await mkdir(join(ws, "node_modules", "docket", "dist"), { recursive: true });
  await installFixture(ws);
  await writeFile(join(ws, "node_modules", "docket", "dist", "index.js"), "export {};\n");
  await writeFile(join(ws, "node_modules", "docket", "README.md"), "docket\n");
  await mkdir(join(ws, "src"));
  await symlink(join(ws, "node_modules", "docket", "dist"), join(ws, "src", "lib"));
  engine = await createPolicyEngine({
    layers: allowEverything,
    workspace: ws,
    protection: {
      ownFiles: runtimeOwnFiles({ workspace: ws, cwd: ws }),
      codeFiles: docketOwnFiles({
        directories: docketCodeDirs(join(ws, "node_modules", "docket"), ws).map((dir) => ({
          path: dir,
          what: "docket's installed code or a package it loads",
        })),
        cwd: ws,
      }),
    },
  });
  engine.grant({ decision: "allow", tool: "*" });
});

afterAll(async () => {
  await rm(ws, { recursive: true, force: true });
});

const decide = async (
  name: string,
  args: Record<string, unknown>,
  options?: Parameters<typeof call>[2],
) => (await engine.decide(call(name, args, options))) as PolicyVerdict;

async function expectRefused(name: string, args: Record<string, unknown>, writes?: boolean) {
  const verdict = await decide(name, args, writes === undefined ? undefined : { writes });
  expect(verdict, JSON.stringify(args)).toMatchObject({
    decision: "deny",
    rule: SELF_PROTECTION_RULE,
    layer: "docket",
  });
  expect(verdict.reason).toContain("docket's installed code");
}

describe("docket's installed code cannot be changed by any tool", () => {
  it("file tools that write: every spelling, through a symlink, by absolute path", async () => {
    for (const path of [
      "node_modules/docket/dist/index.js",
      "./src/../node_modules/docket/dist/index.js",
      "NODE_MODULES/Docket/dist/index.js",
      "node_modules/docket/dist/new-file.js",
      "src/lib/index.js",
      join(ws, "node_modules/docket/package.json"),
      // The launcher `npx docket` runs, and a package docket loads (its shell parser).
      "node_modules/.bin/docket",
      "node_modules/web-tree-sitter/web-tree-sitter.js",
      "node_modules/wasm-helper/index.js",
    ]) {
      await expectRefused("write_file", { path, content: "evil" });
      await expectRefused("edit_file", { path, old_string: "a", new_string: "b" });
    }
  });

  it("shell commands that write into it, however spelled", async () => {
    for (const command of [
      "echo 'process.exit(0)' > node_modules/docket/dist/index.js",
      "cat evil.js >> ./node_modules/docket/dist/index.js",
      "cp evil.js node_modules/docket/dist/index.js",
      "sed -i s/deny/allow/ node_modules/docket/dist/index.js",
      "bash -c 'tee node_modules/docket/dist/index.js < evil.js'",
      "find node_modules/docket -name '*.js' -delete",
      "rm -rf node_modules/docket",
      'python3 -c \'open("node_modules/docket/dist/index.js","w")\'',
      "ln -sf /tmp/evil.js src/lib/index.js",
      // Reading programs, but a redirect, a change of folder, a variable or a path of its own.
      "cd node_modules/docket/dist && echo evil > index.js",
      "cd node_modules && cat ../evil.js > docket/dist/index.js",
      "echo evil >&node_modules/docket/dist/index.js",
      "D=node_modules/docket/dist; echo evil > $D/index.js",
      "echo evil > $PWD/node_modules/docket/dist/index.js",
      "./cat node_modules/docket/dist/index.js",
      "PATH=.:$PATH cat node_modules/docket/dist/index.js",
      "rg --pre ./w.sh x node_modules/docket/dist/index.js",
      // Globs that reach into it, and the folders it loads from.
      "cp evil.js node_modules/do*ket/dist/index.js",
      "cp evil.js n*/docket/dist/index.js",
      "rm -rf node_mod*",
      "rm -rf node_modules/.bin",
      "mv node_modules nm",
      "rm -rf node_modules",
      "rm node_modules/.bin/docket",
      "echo 'console.error(1)' >> node_modules/web-tree-sitter/web-tree-sitter.js",
    ]) {
      await expectRefused("run_command", { command });
    }
  });

  it("another tool that writes, given a string naming it", async () => {
    await expectRefused(
      "mcp_fs_write",
      { target: { file: `file://${ws}/node_modules/docket/dist/index.js` } },
      true,
    );
  });

  it("reading it stays allowed: a project may use docket, and its code is no secret", async () => {
    expect((await decide("read_file", { path: "node_modules/docket/README.md" })).decision).toBe(
      "allow",
    );
    for (const command of [
      "cat node_modules/docket/README.md",
      "ls -la node_modules/docket/dist",
      "grep -rn checkpoint node_modules/docket/dist | wc -l",
      // Pipelines of readers and programs given no path of docket's.
      "grep -rn x node_modules/docket/dist | sort | uniq -c",
      "cat node_modules/docket/package.json | jq .version",
      "git status",
      "npm test",
      "git add src",
      "cp src/*.ts out/",
      // The project's own packages and the caches in node_modules stay the tools' to write.
      "echo x > node_modules/left-pad/index.js",
      "mkdir -p node_modules/.cache/vitest && echo {} > node_modules/.cache/vitest/results.json",
    ]) {
      expect((await decide("run_command", { command })).decision, command).toBe("allow");
    }
    // A tool that only reads, given a string naming it.
    expect(
      (await decide("mcp_search", { q: "node_modules/docket/dist" }, { writes: false })).decision,
    ).toBe("allow");
    // The rest of the workspace is untouched.
    expect((await decide("write_file", { path: "src/app.ts", content: "x" })).decision).toBe(
      "allow",
    );
    expect(
      (await decide("write_file", { path: "node_modules/.vite/deps.json", content: "{}" }))
        .decision,
    ).toBe("allow");
  });
});

describe("which folder is docket's code", () => {
  it("its package, what it depends on and its launcher; not a checkout of docket that the workspace lies in", async () => {
    expect(docketCodeDirs(join(ws, "node_modules", "docket"), ws).sort()).toEqual(
      ["docket", "web-tree-sitter", "wasm-helper", ".bin"]
        .map((name) => join(ws, "node_modules", name))
        .sort(),
    );
    expect(docketCodeDirs(ws, join(ws, "examples"))).toEqual([]);
    expect(docketCodeDirs(ws, ws)).toEqual([]);
  });

  it("says when docket is installed inside the workspace, not for a checkout of it", async () => {
    expect(installedInWorkspace(join(ws, "node_modules", "docket"), ws)).toBe(true);
    expect(installedInWorkspace(ws, join(ws, "examples"))).toBe(false);
    const outside = await tempDir("docket-code-outside-");
    expect(installedInWorkspace(packageRoot().dir, outside)).toBe(false);
  });

  it("linked into the project: the package where it really is and the project's node_modules", async () => {
    const elsewhere = await tempDir("docket-code-linked-");
    const project = await tempDir("docket-code-project-");
    await mkdir(join(elsewhere, "docket"));
    await writeFile(
      join(elsewhere, "docket", "package.json"),
      JSON.stringify({ name: "docket", dependencies: { zod: "4" } }),
    );
    // Its dependencies hoisted into the project, as npm workspaces leave them.
    await mkdir(join(project, "node_modules", "zod"), { recursive: true });
    await writeFile(join(project, "node_modules", "zod", "package.json"), "{}");
    await symlink(join(elsewhere, "docket"), join(project, "node_modules", "docket"));
    expect(docketCodeDirs(join(elsewhere, "docket"), project)).toContain(join(elsewhere, "docket"));
    expect(docketCodeDirs(join(elsewhere, "docket"), project)).toContain(
      join(project, "node_modules", "docket"),
    );
  });

  it("docketProtection guards the running docket's own package from a workspace outside it", async () => {
    const root = packageRoot().dir;
    const protection = docketProtection({ workspace: ws, cwd: ws });
    const own = await createPolicyEngine({ layers: allowEverything, workspace: ws, protection });
    const write = (await own.decide(
      call("write_file", { path: join(root, "package.json"), content: "{}" }),
    )) as PolicyVerdict;
    expect(write).toMatchObject({ decision: "deny", rule: SELF_PROTECTION_RULE });
    const read = (await own.decide(
      call("read_file", { path: join(root, "package.json") }),
    )) as PolicyVerdict;
    expect(read.decision).toBe("allow");
    // Run from inside docket's checkout, its developers edit it as any project.
    expect(docketProtection({ workspace: root, cwd: root }).codeFiles?.entries).toEqual([]);
  });
});

describe("docket run, with docket installed in the project", () => {
  it("refuses the agent's writes into node_modules/docket, by file tool and by shell", async () => {
    const cwd = await tempDir("docket-code-run-");
    const root = packageRoot().dir;
    // As `npm link` or a workspace install leaves it: node_modules/docket is docket's package.
    await mkdir(join(cwd, "node_modules"));
    await symlink(root, join(cwd, "node_modules", "docket"));
    await writeFile(
      join(cwd, "docket.yaml"),
      "policy:\n  rules:\n    - { decision: allow, tool: '*', reason: everything }\n",
    );
    const probe = `code-protection-probe-${process.pid}.txt`;
    const script = await writeScriptFile(cwd, [
      turn(
        "Patching docket.",
        callOf("c_file", "write_file", { path: `node_modules/docket/${probe}`, content: "evil" }),
        callOf("c_shell", "run_command", { command: `echo evil > node_modules/docket/${probe}` }),
        callOf("c_ok", "write_file", { path: "notes.txt", content: "fine" }),
      ),
      turn("Done."),
    ]);
    try {
      const run = await runDocketIn(cwd, ["run", "Go.", "--model", `scripted:${script}`, "--json"]);
      expect(run.code, run.stderr).toBe(0);
      const results = (jsonLines(run.stdout).filter((line) => line.type === "tool_result") ??
        []) as { callId?: string; status?: string; reason?: string }[];
      const byId = new Map(results.map((r) => [r.callId, r]));
      expect(byId.get("c_file")?.status, run.stdout).toBe("refused");
      expect(byId.get("c_shell")?.status, run.stdout).toBe("refused");
      expect(byId.get("c_ok")?.status, run.stdout).toBe("ok");
      // The operator is told where a docket for untrusted agents belongs.
      expect(run.stderr).toContain("docket is installed inside this workspace");
      expect(existsSync(join(root, probe))).toBe(false);
    } finally {
      await rm(join(root, probe), { force: true });
    }
  }, 60_000);
});

describe("a folder holding docket's own files", () => {
  it("cannot be moved, replaced or removed without naming the files (mv, cp -r, rsync, ln, rm)", async () => {
    const home = await tempDir("docket-above-home-");
    const project = await tempDir("docket-above-ws-");
    const own = await createPolicyEngine({
      layers: allowEverything,
      workspace: project,
      home,
      protection: {
        ownFiles: runtimeOwnFiles({ workspace: project, cwd: project, env: { HOME: home } }),
      },
    });
    const verdict = async (command: string) =>
      (await own.decide(call("run_command", { command }))) as PolicyVerdict;
    for (const command of [
      `mv ${home}/.config ${home}/.config.old`,
      `cp -r fake/. ${home}/.config`,
      `rsync -a fake/ ${home}/.config/`,
      `ln -sfn ${project}/fake ${home}/.config`,
      `rm -rf ${home}/.config`,
      // The shell's spellings of the home folder.
      "mv ~/.config /tmp/c",
      "mv $HOME/.config /tmp/c",
      ["mv $", "{HOME}/.config /tmp/c"].join(""),
      'mv "$HOME"/.config /tmp/c',
      "rsync -a --delete /tmp/n/ $HOME/.config/",
    ]) {
      const denied = await verdict(command);
      expect(denied, command).toMatchObject({ decision: "deny", rule: SELF_PROTECTION_RULE });
      expect(denied.reason, command).toContain("holds");
    }
    for (const command of [`ls ${home}`, "cd .. && ls", `cp a.txt ${home}/notes.txt`, "mv a b"]) {
      expect((await verdict(command)).decision, command).toBe("allow");
    }
  });
});
