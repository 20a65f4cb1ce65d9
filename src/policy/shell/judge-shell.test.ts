import { beforeAll, describe, expect, it } from "vitest";
import { compileCommandPattern } from "./command-pattern.js";
import { judgeShell, type ShellRule } from "./judge-shell.js";
import type { ShellAnalysis } from "./shell-analysis.js";
import { loadShellParser, type ShellParser } from "./shell-parser.js";

const rule = (id: string, decision: ShellRule["decision"], ...patterns: string[]): ShellRule => ({
  id,
  decision,
  patterns: patterns.map(compileCommandPattern),
});

const RULES = [
  rule("read", "allow", "ls *", "cat *", "echo *", "git status *", "git log *", "git push *"),
  rule("push", "ask", "git push *"),
  rule("no-rm", "deny", "rm *"),
];

let shell: ShellParser;
beforeAll(async () => {
  shell = await loadShellParser();
});
const judge = (script: string, rules = RULES) => judgeShell(shell.analyse(script), rules);

describe("judgeShell", () => {
  it("allows when every command matches an allow rule", () => {
    const verdict = judge("ls -la && cat README.md | git log --oneline");
    expect(verdict).toMatchObject({
      decision: "allow",
      rule: "read",
      command: "ls -la",
      uncertainties: [],
    });
    expect(verdict.explanation).toContain('"cat README.md" matches "cat *"');
  });

  it("returns none when some command matches nothing", () => {
    expect(judge("ls && make")).toMatchObject({ decision: "none", command: "make" });
    expect(judge("ls && make").explanation).toContain('no rule matched "make"');
  });

  it("returns none with no commands for an empty script", () => {
    expect(judge("")).toEqual({
      decision: "none",
      explanation: "the script runs no command",
      uncertainties: [],
    });
    expect(judgeShell({ commands: [], uncertainties: [] }, RULES).decision).toBe("none");
  });

  it("lets the strictest rule win per command", () => {
    expect(judge("git push origin main")).toMatchObject({
      decision: "ask",
      rule: "push",
      command: "git push origin main",
    });
  });

  it("denies when any command is denied, naming the rule, sub-command and via", () => {
    const verdict = judge('ls; sudo bash -c "git push; rm -rf /"', [
      ...RULES,
      rule("sudo", "allow", "sudo *", "bash -c *"),
    ]);
    expect(verdict).toMatchObject({ decision: "deny", rule: "no-rm", command: "rm -rf /" });
    expect(verdict.explanation).toBe(
      'denied: "rm -rf /" (via sudo, bash -c) matches "rm *" of rule "no-rm"',
    );
  });

  it("asks when something is uncertain, even if every command is allowed", () => {
    const verdict = judge("ls > out.txt");
    expect(verdict.decision).toBe("ask");
    expect(verdict.rule).toBeUndefined();
    expect(verdict.command).toBe("> out.txt");
    expect(verdict.explanation).toContain("redirect_write");
    expect(verdict.uncertainties).toEqual([
      { reason: "redirect_write", text: "> out.txt", detail: "output is written to out.txt" },
    ]);
  });

  it("names an ask rule alongside the uncertainty", () => {
    const verdict = judge("git push && eval ls");
    expect(verdict).toMatchObject({ decision: "ask", rule: "push", command: "git push" });
    expect(verdict.explanation).toContain("eval");
  });

  it("keeps deny above uncertainty", () => {
    expect(judge("eval 'rm -rf /'")).toMatchObject({ decision: "deny", rule: "no-rm" });
    expect(judge("$X; rm x").decision).toBe("deny");
  });

  it("treats paths strictly for allow and loosely for deny", () => {
    expect(judge("/tmp/evil/ls").decision).toBe("none");
    expect(judge("/usr/bin/rm -f x").decision).toBe("deny");
  });

  it("never allows an analysis carrying uncertainties", () => {
    const analysis: ShellAnalysis = {
      commands: [{ argv: ["ls"], program: "ls", text: "ls", depth: 0, via: [] }],
      uncertainties: [{ reason: "parse_error", text: "ls (", detail: "x" }],
    };
    expect(judgeShell(analysis, RULES).decision).toBe("ask");
  });
});
