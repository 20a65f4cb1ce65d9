import { beforeAll, describe, expect, it } from "vitest";
import type { ShellAnalysis } from "./shell-analysis.js";
import { loadShellParser, type ShellParser } from "./shell-parser.js";

let shell: ShellParser;
beforeAll(async () => {
  shell = await loadShellParser();
});

function argvs(analysis: ShellAnalysis): string[][] {
  return analysis.commands.map((c) => c.argv);
}

function reasons(analysis: ShellAnalysis): string[] {
  return analysis.uncertainties.map((u) => u.reason);
}

describe("loadShellParser", () => {
  it("loads once and shares the parser", async () => {
    expect(await loadShellParser()).toBe(shell);
  });

  it("returns nothing for an empty or comment-only script", () => {
    expect(shell.analyse("")).toEqual({ commands: [], uncertainties: [] });
    expect(shell.analyse("  # just a comment\n")).toEqual({ commands: [], uncertainties: [] });
  });
});

describe("quote removal", () => {
  it.each([
    ['"rm" x'],
    ["r''m x"],
    ["\\rm x"],
    ["$'\\x72m' x"],
    ["$'\\162m' x"],
    ['r"m" x'],
    ["'r'm x"],
  ])("reads %s as rm", (script) => {
    const analysis = shell.analyse(script);
    expect(argvs(analysis)).toEqual([["rm", "x"]]);
    expect(analysis.commands[0]?.program).toBe("rm");
    expect(analysis.uncertainties).toEqual([]);
  });

  it("keeps quoted blanks inside one word and joins adjacent pieces", () => {
    expect(argvs(shell.analyse(`echo "a b" 'c'd e\\ f "x\\"y"`))).toEqual([
      ["echo", "a b", "cd", "e f", 'x"y'],
    ]);
  });

  it("keeps the source text of run-time expansions", () => {
    const expansion = ["$", "{x:-y}"].join("");
    expect(argvs(shell.analyse(`echo $HOME "${expansion}" $(date)`))[0]).toEqual([
      "echo",
      "$HOME",
      expansion,
      "$(date)",
    ]);
  });

  it("applies brace expansion to arguments like bash", () => {
    expect(argvs(shell.analyse("echo a{b,c} {1..3}"))[0]).toEqual([
      "echo",
      "ab",
      "ac",
      "1",
      "2",
      "3",
    ]);
  });
});

describe("command discovery", () => {
  it("records text, depth and via", () => {
    const analysis = shell.analyse(`sudo bash -c "ls \\$(rm x)"`);
    expect(analysis.commands.map((c) => [c.program, c.depth, c.via])).toEqual([
      ["sudo", 0, []],
      ["bash", 0, ["sudo"]],
      ["ls", 1, ["sudo", "bash -c"]],
      ["rm", 2, ["sudo", "bash -c", "$(…)"]],
    ]);
    expect(analysis.commands[1]?.text).toBe('bash -c "ls \\$(rm x)"');
    expect(analysis.commands[3]?.text).toBe("rm x");
  });

  it("follows wrapper tables", () => {
    const programs = (s: string) => shell.analyse(s).commands.map((c) => c.program);
    expect(programs("timeout -s KILL 5 nice -n 3 nohup ls")).toEqual([
      "timeout",
      "nice",
      "nohup",
      "ls",
    ]);
    expect(programs("env -i A=1 B=2 ls")).toEqual(["env", "ls"]);
    expect(programs("sudo -u root -g wheel ls")).toEqual(["sudo", "ls"]);
    expect(programs("command -v rm")).toEqual(["command"]);
    expect(programs("xargs -n 1 -P 4 grep x")).toEqual(["xargs", "grep"]);
    expect(programs("find . -exec ls {} + -exec cat {} \\;")).toEqual(["find", "ls", "cat"]);
    expect(programs("ssh -p 22 -i key host ls -la")).toEqual(["ssh", "ls"]);
    expect(programs("flock -n /tmp/l ls")).toEqual(["flock", "ls"]);
    expect(programs("busybox rm x")).toEqual(["busybox", "rm"]);
  });

  it("appends xargs input unless -I replaces it", () => {
    expect(argvs(shell.analyse("xargs grep x"))[1]).toEqual(["grep", "x", "<xargs-input>"]);
    expect(argvs(shell.analyse("xargs -I % cp % /tmp"))[1]).toEqual(["cp", "%", "/tmp"]);
  });

  it("finds commands in every construct", () => {
    const script = [
      'a=$(c1) b=`c2` c3 "$(c4)" <(c5) >(c6) > "$(c7)"',
      "[[ $(c8) ]] && (( $(c9) ))",
      "for i in $(c10); do c11; done; while c12; do c13; done; until c14; do :; done",
      "case $(c15) in x) c16;; esac; if c17; then c18; elif c19; then c20; else c21; fi",
      "f() { c22; }; { c23; }; (c24); ! c25; c26 | c27 |& c28 & c29 || c30",
      "cat <<EOF\n$(c31) `c32`\nEOF",
      "declare x=$(c33); export y=$(c34); local z=$(c35)",
    ].join("\n");
    const found = new Set(shell.analyse(script).commands.map((c) => c.program));
    for (let i = 1; i <= 35; i++) expect(found, `c${i}`).toContain(`c${i}`);
  });

  it("does not run a quoted here-document", () => {
    expect(argvs(shell.analyse("cat <<'EOF'\n$(rm x)\nEOF"))).toEqual([["cat"]]);
  });
});

describe("uncertainties", () => {
  it.each([
    ["$x", "dynamic_command"],
    ["foo | bash", "stdin_to_interpreter"],
    ["eval ls", "eval"],
    ["source x", "source"],
    ["echo > f", "redirect_write"],
    ["PATH=/x ls", "dangerous_assignment"],
    ["python -c pass", "inline_code"],
    ["git -c a.b=c log", "dangerous_flag"],
    ["echo (", "parse_error"],
    ["sudo --frobnicate ls", "unknown_option"],
  ])("%s gives %s", (script, reason) => {
    expect(reasons(shell.analyse(script))).toContain(reason);
  });

  it("does not flag harmless redirections", () => {
    expect(shell.analyse("ls 2>&1 >/dev/null 2>/dev/stderr >&2 <in").uncertainties).toEqual([]);
  });

  it("caps script size", () => {
    const analysis = shell.analyse(`echo ${"a".repeat(70_000)}`);
    expect(reasons(analysis)).toEqual(["too_large"]);
    expect(analysis.commands).toEqual([]);
  });

  it("caps nested -c strings", () => {
    let script = "ls";
    for (let i = 0; i < 12; i++) script = `bash -c ${JSON.stringify(script)}`;
    const analysis = shell.analyse(script);
    expect(reasons(analysis)).toContain("too_deep");
    expect(Math.max(...analysis.commands.map((c) => c.depth))).toBeLessThanOrEqual(8);
  });

  it("survives deeply nested substitutions", () => {
    const script = `${"echo $(".repeat(2000)}rm x${")".repeat(2000)}`;
    const analysis = shell.analyse(script);
    expect(analysis.commands.some((c) => c.program === "rm")).toBe(true);
  });
});
