/**
 * Allow rules see through wrappers (`bash -lc`, `env`, `timeout`, `xargs` …): the commands inside
 * decide, and a wrapper never turns a deny or an ask into an allow.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { compileCommandPattern } from "./command-pattern.js";
import { judgeShell, type ShellRule, shellCoverage } from "./judge-shell.js";
import { loadShellParser, type ShellParser } from "./shell-parser.js";

const rule = (id: string, decision: ShellRule["decision"], ...patterns: string[]): ShellRule => ({
  id,
  decision,
  patterns: patterns.map(compileCommandPattern),
});

const RULES: ShellRule[] = [
  rule("reads", "allow", "ls *", "cat *", "git status *", "npm test", "rg *", "echo *", "sudo *"),
  rule("no-rm", "deny", "rm *"),
  rule("ask-push", "ask", "git push *"),
  rule("ask-bash-x", "ask", "bash -x *"),
];

let parser: ShellParser;
beforeAll(async () => {
  parser = await loadShellParser();
});
const judge = (script: string) => judgeShell(parser.analyse(script), RULES);

/** Wrappers a rule need not name, each applied to a command text. */
const WRAPPERS: ReadonlyArray<(inner: string) => string> = [
  (c) => `bash -c '${c}'`,
  (c) => `bash -lc '${c}'`,
  (c) => `sh -c '${c}'`,
  (c) => `zsh -lc '${c}'`,
  (c) => `env LC_ALL=C ${c}`,
  (c) => `timeout 30 ${c}`,
  (c) => `time ${c}`,
  (c) => `nice -n 5 ${c}`,
  (c) => `stdbuf -oL ${c}`,
  (c) => `echo x | xargs ${c}`,
  (c) => `command ${c}`,
];

describe("allow rules see through wrappers", () => {
  it("allows a wrapper when everything inside is allowed", () => {
    for (const wrap of WRAPPERS) {
      // (xargs appends its input, so each inner command here is allowed with any more words.)
      for (const inner of ["ls -la", "git status --short", "rg -n foo", "cat README.md"]) {
        const script = wrap(inner);
        expect(judge(script).decision, script).toBe("allow");
      }
    }
    expect(judge("bash -lc 'ls && git status'").decision).toBe("allow");
    expect(judge("timeout 600 npm test").decision).toBe("allow");
    expect(judge("timeout 5 bash -c 'rg foo | cat'").decision).toBe("allow");
  });

  it("keeps what is inside: a deny or an ask wins, an unmatched command leaves it undecided", () => {
    expect(judge("bash -lc 'ls; rm -rf /'")).toMatchObject({ decision: "deny", rule: "no-rm" });
    expect(judge("timeout 5 git push origin main")).toMatchObject({ decision: "ask" });
    expect(judge("env A=1 make").decision).toBe("none");
    expect(judge("echo src | xargs rm -rf").decision).toBe("deny");
  });

  it("under a permissive prefix rule, options that run a program are still asked, however spelled", () => {
    for (const script of [
      "rg --hostname-bin ./x foo",
      "rg --hostname-bin=./x foo",
      "rg --pre ./x foo",
      "rg -z foo",
      "timeout 5 rg --pre=./x foo",
      // A file named `--pre=./x` matched by `*`, or an option in a variable.
      "rg foo *",
      "OPTS=--pre=./x; rg $OPTS foo",
    ]) {
      expect(judge(script).decision, script).toBe("ask");
    }
    // After `--` every word is an operand.
    expect(judge("rg -- foo *").decision).toBe("allow");
  });

  it("still lets a rule on the wrapper itself vote", () => {
    expect(judge("bash -x -c 'ls'")).toMatchObject({ decision: "ask", rule: "ask-bash-x" });
  });

  it("does not see through wrappers that change who or where a command runs", () => {
    // sudo is allowed by its own rule here; su, ssh and nohup are named by none.
    expect(judge("su -c 'ls'").decision).toBe("none");
    expect(judge("ssh host ls").decision).toBe("none");
    expect(judge("nohup ls").decision).toBe("none");
    expect(judge("find . -exec cat {} \\;").decision).toBe("none");
  });

  it("a wrapper that runs nothing found (a script file, a variable) is judged as itself", () => {
    expect(judge("bash build.sh").decision).toBe("none");
    expect(judge('bash -c "$CMD"').decision).toBe("ask");
    expect(judge("env").decision).toBe("none");
  });

  it("does not list a see-through wrapper among the commands no rule covers", () => {
    const coverage = shellCoverage(parser.analyse("timeout 5 make"), RULES);
    expect(coverage.uncovered.map((c) => c.text)).toEqual(["make"]);
  });

  it("property: wrapping never turns a deny or an ask into an allow", () => {
    const inner = fc.constantFrom(
      "rm -rf /",
      "git push origin main",
      "ls; rm x",
      "eval ls",
      "ls > out.txt",
      "cat $(rm x)",
      "make",
      "bash -x -c ls",
      "rg --pre ./x foo",
      "sudo rm -rf /",
      "ls && npm install",
    );
    const chain = fc.array(fc.constantFrom(...WRAPPERS), { minLength: 1, maxLength: 3 });
    fc.assert(
      fc.property(inner, chain, (command, wrappers) => {
        const before = judge(command).decision;
        // Single quotes nest badly; double the wrapping only where the text allows it.
        const script = wrappers.reduce<string>(
          (text, wrap) => (text.includes("'") ? `timeout 9 ${text}` : wrap(text)),
          command,
        );
        const after = judge(script).decision;
        if (before !== "allow") expect(after, `${command} → ${script}`).not.toBe("allow");
        if (before === "deny") expect(after, `${command} → ${script}`).toBe("deny");
      }),
      { numRuns: 300 },
    );
  });
});
