import { link, mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { docketProtection } from "../../src/cli/docket-protection.js";
import { loadPolicyFiles } from "../../src/config/load-policy-files.js";
import type { PolicyVerdict } from "../../src/policy/policy.js";
import { createPolicyEngine, type DocketPolicyEngine } from "../../src/policy/policy-engine.js";
import { SELF_PROTECTION_RULE } from "../../src/policy/self-protection-vote.js";
import { call } from "./support/policy-request.js";

// docket's own files and CLI are refused to every tool by a vote of layer `docket`, which the
// most permissive policy (a managed allow-everything rule, session grants) cannot override.

let ws: string;
let home: string;
let engine: DocketPolicyEngine;

beforeAll(async () => {
  ws = await realpath(await mkdtemp(join(tmpdir(), "docket-self-")));
  home = await realpath(await mkdtemp(join(tmpdir(), "docket-self-home-")));
  await mkdir(join(ws, ".docket"));
  await mkdir(join(ws, "src"));
  await writeFile(join(ws, ".docket", "docket.db"), "");
  await writeFile(join(ws, "README.md"), "hi");
  // The workspace is a checkout of docket itself: its CLI is docket's too.
  await writeFile(join(ws, "package.json"), '{"name": "docket"}');
  await mkdir(join(home, ".config", "docket"), { recursive: true });
  await writeFile(join(home, ".config", "docket", "policy.yaml"), "policy:\n  rules: []\n");
  await symlink(join(ws, ".docket", "docket.db"), join(ws, "src", "notes.txt"));
  await link(join(ws, ".docket", "docket.db"), join(ws, "src", "copy.db"));
  const layers = [
    ...loadPolicyFiles({ projectFile: false, env: { HOME: home }, cwd: ws }),
    {
      name: "managed",
      rules: [{ decision: "allow" as const, tool: "*", reason: "allow everything" }],
    },
  ];
  engine = await createPolicyEngine({
    layers,
    workspace: ws,
    home,
    protection: docketProtection({
      storeUrl: "sqlite:.docket/docket.db",
      configFile: join(ws, "docket.yaml"),
      layers,
      workspace: ws,
      cwd: ws,
      env: { HOME: home },
    }),
  });
  engine.grant({ decision: "allow", tool: "*" });
});

afterAll(async () => {
  await rm(ws, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
});

const decide = async (name: string, args: Record<string, unknown>) =>
  (await engine.decide(call(name, args))) as PolicyVerdict;

async function expectProtected(name: string, args: Record<string, unknown>) {
  const verdict = await decide(name, args);
  expect(verdict, JSON.stringify(args)).toMatchObject({
    decision: "deny",
    rule: SELF_PROTECTION_RULE,
    layer: "docket",
  });
  expect(verdict.explanation).toContain("(layer docket)");
  return verdict;
}

describe("docket protects itself, whatever the policy allows", () => {
  it("file tools: the store by every spelling, docket.yaml before it exists, policy files", async () => {
    for (const path of [
      ".docket/docket.db",
      "./.docket/../.docket/docket.db",
      ".DOCKET/DOCKET.DB",
      "src/../.docket/docket.db-wal",
      "src/notes.txt", // a symbolic link to the store
      "src/copy.db", // a hard link to the store
      join(ws, ".docket"),
    ]) {
      await expectProtected("read_file", { path });
    }
    const created = await expectProtected("write_file", { path: "docket.yaml", content: "x" });
    expect(created.reason).toContain("docket.yaml");
    await expectProtected("edit_file", {
      path: join(home, ".config", "docket", "policy.yaml"),
      old_string: "[]",
      new_string: "[{decision: allow, tool: '*'}]",
    });
    await expectProtected("list_files", { path: ".docket" });
    await expectProtected("search_files", { pattern: "x", path: "~/.config/docket" });
  });

  it("MCP tools: any string argument naming docket's files, nested or as a file:// URL", async () => {
    await expectProtected("files__read_text_file", { path: join(ws, "docket.yaml") });
    await expectProtected("files__read_text_file", { path: "docket.yaml" });
    await expectProtected("db__query", { options: { files: ["README.md", ".docket/docket.db"] } });
    await expectProtected("web__open", { url: `file://${ws}/.docket/docket.db` });
    await expectProtected("notes__add", { text: "attach .docket/docket.db please" });
    await expectProtected("db__open", { dsn: "sqlite:file=.docket/docket.db;mode=rw" });
    await expectProtected("web__open", { url: `file://${ws}/%2Edocket/docket.db` });
    expect(await decide("files__read_text_file", { path: "README.md" })).toMatchObject({
      decision: "allow",
    });
  });

  it("run_command: commands naming docket's files or running docket itself", async () => {
    for (const command of [
      "cat .docket/docket.db",
      "sqlite3 .docket/docket.db 'update approvals set status=1'",
      "cat '.do'cket/docket.db",
      "cd src && cat ../.docket/docket.db",
      "cp src/notes.txt /tmp/x",
      "cat .dock*/*.db",
      "rm docket.yaml",
      "echo 'rules: []' > docket.yaml",
      "cat < ~/.config/docket/policy.yaml",
      "cat $HOME/.config/docket/policy.yaml",
      "docket approvals approve apr_1 --as me",
      "npx docket approvals approve apr_1 --as me",
      "npx -y docket@latest approvals list",
      "node dist/src/cli/main.js approvals approve apr_1 --as me",
      `node ${join(process.cwd(), "dist", "src", "cli", "main.js")} approvals list`,
      `npx tsx ${join(process.cwd(), "src", "cli", "main.ts")} approvals list`,
      "./node_modules/.bin/docket approvals approve apr_1 --as me",
      'script -qc "docket approvals approve x --as me" /dev/null',
      "bash -c 'docket approvals approve x --as me'",
      "echo $(docket approvals list)",
      "env DOCKET_TOKEN=x docket approvals approve x",
    ]) {
      await expectProtected("run_command", { command });
    }
  });

  it("leaves ordinary work alone", async () => {
    for (const command of ["git status", "cat README.md", "grep -rn docket src", "ls -la src"]) {
      expect(await decide("run_command", { command }), command).toMatchObject({
        decision: "allow",
      });
    }
    expect(await decide("read_file", { path: "README.md" })).toMatchObject({ decision: "allow" });
    expect(await decide("write_file", { path: "notes.md", content: "docket.yaml" })).toMatchObject({
      decision: "allow",
    });
  });

  it("no spelling of the store in a shell command is allowed (property)", async () => {
    const prefix = fc.constantFrom("", "./", "src/../", ".docket/../");
    const quote = fc.constantFrom("", "'", '"');
    const program = fc.constantFrom("cat", "head -c 10", "sqlite3", "cp", "xxd", "base64");
    await fc.assert(
      fc.asyncProperty(program, prefix, quote, fc.boolean(), async (prog, pre, q, upper) => {
        const path = `${pre}${upper ? ".DOCKET" : ".docket"}/docket.db`;
        const verdict = await decide("run_command", { command: `${prog} ${q}${path}${q}` });
        return verdict.decision === "deny" && verdict.rule === SELF_PROTECTION_RULE;
      }),
      { numRuns: 60 },
    );
  });
});
