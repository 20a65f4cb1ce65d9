/**
 * The four families of hidden execution (issue 14): code in `${…}` operator words, arithmetic
 * that evaluates a value, expansions and builtins that re-evaluate text, and git configuration
 * that becomes a command or a write. Every string is judged under `docket init`'s policy and
 * a permissive one, and also run under real bash in a scratch directory (a real git repository
 * for the git cases), so each case is shown to really create the marker `M`, delete `victim`
 * or write where it says: a case that does nothing under bash would prove nothing.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { INITIAL_CONFIG } from "../../src/cli/commands/init-command.js";
import { toolFromMeta } from "../../src/policy/builtin-tool-meta.js";
import type { PolicyRequest } from "../../src/policy/policy.js";
import { createPolicyEngine, type DocketPolicyEngine } from "../../src/policy/policy-engine.js";
import type { PolicyLayer, PolicyRuleSpec } from "../../src/policy/policy-rule.js";
import { compileCommandPattern } from "../../src/policy/shell/command-pattern.js";
import { judgeShell, type ShellRule } from "../../src/policy/shell/judge-shell.js";
import { loadShellParser, type ShellParser } from "../../src/policy/shell/shell-parser.js";
import { HIDDEN, type HiddenCase } from "./support/hidden-execution-cases.js";

const PERMISSIVE: PolicyRuleSpec[] = [
  { id: "no-rm", decision: "deny", tool: "run_command", command: "rm *" },
  {
    id: "open",
    decision: "allow",
    tool: "run_command",
    command: ["git *", "ls *", "cat *", "echo *"],
  },
];
const PERMISSIVE_SHELL: ShellRule[] = [
  { id: "no-rm", decision: "deny", patterns: [compileCommandPattern("rm *")] },
  {
    id: "open",
    decision: "allow",
    patterns: ["git *", "ls *", "cat *", "echo *"].map(compileCommandPattern),
  },
];

const scratchRoot = mkdtempSync(path.join(tmpdir(), "docket-hidden-"));
afterAll(() => rmSync(scratchRoot, { recursive: true, force: true }));

function git(dir: string, args: string[], env: NodeJS.ProcessEnv): void {
  const result = spawnSync("git", args, { cwd: dir, env, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr}`);
}

/** A scratch directory with `victim`, the case's files and (for git cases) a committed repo. */
function scratch(test: HiddenCase, index: number): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = path.join(scratchRoot, String(index));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: dir,
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_TERMINAL_PROMPT: "0",
    GIT_AUTHOR_NAME: "t",
    GIT_AUTHOR_EMAIL: "t@example.com",
    GIT_COMMITTER_NAME: "t",
    GIT_COMMITTER_EMAIL: "t@example.com",
    LC_ALL: "C",
  };
  spawnSync("mkdir", ["-p", dir]);
  writeFileSync(path.join(dir, "victim"), "keep me\n");
  writeFileSync(path.join(dir, "payload"), "a[$(touch M)]\n");
  writeFileSync(path.join(dir, "prompt"), "$(touch M)\n");
  if (test.repo === true) {
    git(dir, ["init", "-q"], env);
    writeFileSync(path.join(dir, "a.txt"), "one\n");
    git(dir, ["add", "a.txt"], env);
    git(dir, ["commit", "-q", "-m", "first"], env);
    writeFileSync(path.join(dir, "a.txt"), "two\n");
    writeFileSync(path.join(dir, ".gitattributes"), "*.txt diff=t filter=f\n");
    writeFileSync(path.join(dir, "evil.cfg"), "[alias]\n\tv = !touch M\n");
    spawnSync("mkdir", ["-p", path.join(dir, "hooks")]);
    writeFileSync(path.join(dir, "hooks", "pre-commit"), "#!/bin/sh\ntouch M\n");
    chmodSync(path.join(dir, "hooks", "pre-commit"), 0o755);
  }
  return { dir, env };
}

function request(command: string): PolicyRequest {
  const tool = toolFromMeta("run_command", { writes: true, policyArgs: { command: "command" } });
  return {
    tool,
    args: { command },
    rawArguments: JSON.stringify({ command }),
    callId: "c",
    principal: "agent",
    sessionId: undefined,
  };
}

describe("hidden execution families", () => {
  let shell: ShellParser;
  let initEngine: DocketPolicyEngine;
  let permissiveEngine: DocketPolicyEngine;
  beforeAll(async () => {
    shell = await loadShellParser();
    const policy = (parse(INITIAL_CONFIG) as { policy: Omit<PolicyLayer, "name"> }).policy;
    initEngine = await createPolicyEngine({ layers: [{ name: "project", ...policy }] });
    permissiveEngine = await createPolicyEngine({
      layers: [{ name: "project", defaults: { reads: "allow", writes: "ask" }, rules: PERMISSIVE }],
    });
  });

  it("has at least 40 cases over the four families", () => {
    expect(HIDDEN.length).toBeGreaterThanOrEqual(40);
    const families = new Set(HIDDEN.map((c) => c.family));
    expect([...families].sort()).toEqual(["arithmetic", "expansion", "git", "re-evaluation"]);
  });

  it.each(HIDDEN.map((c, i) => [c.script, c, i] as const))(
    "%j is not allowed, and does what it claims under bash",
    async (script, test, index) => {
      const { dir, env } = scratch(test, index);
      const run = spawnSync("bash", ["-c", script], {
        cwd: dir,
        env,
        encoding: "utf8",
        timeout: 20_000,
        stdio: ["ignore", "pipe", "pipe"],
      });
      const proof = test.proof ?? "creates M";
      if (proof === "deletes victim")
        expect(existsSync(path.join(dir, "victim")), run.stderr).toBe(false);
      else
        expect(existsSync(path.join(dir, proof.slice("creates ".length))), run.stderr).toBe(true);

      const expected = proof === "deletes victim" ? "deny" : undefined;
      for (const [name, engine] of [
        ["docket init", initEngine],
        ["permissive", permissiveEngine],
      ] as const) {
        const verdict = await engine.decide(request(script));
        expect(verdict.decision, `${name}: ${verdict.explanation}`).not.toBe("allow");
        if (expected === "deny")
          expect(verdict.decision, `${name}: ${verdict.explanation}`).toBe("deny");
      }
      // The analysis itself must flag it or show the hidden command, not fall through silently.
      const analysis = shell.analyse(script);
      const shellVerdict = judgeShell(analysis, PERMISSIVE_SHELL);
      expect(shellVerdict.decision, shellVerdict.explanation).not.toBe("allow");
      if (shellVerdict.decision === "none")
        expect(analysis.commands.map((c) => c.program)).toContain("touch");
      if (expected === "deny") expect(shellVerdict.decision, shellVerdict.explanation).toBe("deny");
    },
  );
});

describe("docs/policy.md shell examples", () => {
  it("judge as the table says, under the permissive policy", async () => {
    const docs = readFileSync(
      fileURLToPath(new URL("../../docs/policy.md", import.meta.url)),
      "utf8",
    );
    const block = /<!-- shell-examples:[^>]*-->\n([\s\S]*?)<!-- \/shell-examples -->/.exec(docs);
    expect(block).not.toBeNull();
    const rows = [...(block?.[1] ?? "").matchAll(/^\| (allow|ask|deny) *\| `(.+)` *\|$/gm)];
    expect(rows.length).toBeGreaterThanOrEqual(10);
    const shell = await loadShellParser();
    for (const [, expected, command] of rows) {
      const verdict = judgeShell(shell.analyse(command as string), PERMISSIVE_SHELL);
      expect(verdict.decision, `${command}: ${verdict.explanation}`).toBe(expected);
    }
  });
});
