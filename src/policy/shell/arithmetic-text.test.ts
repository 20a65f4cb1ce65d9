// biome-ignore-all lint/suspicious/noTemplateCurlyInString: shell syntax, not templates
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { hiddenScripts, scanArithmetic } from "./arithmetic-text.js";
import { compileCommandPattern } from "./command-pattern.js";
import { judgeShell, type ShellRule } from "./judge-shell.js";
import { loadShellParser, type ShellParser } from "./shell-parser.js";

const RULES: ShellRule[] = [
  { id: "allow", decision: "allow", patterns: ["echo *", "git *"].map(compileCommandPattern) },
  { id: "deny-rm", decision: "deny", patterns: [compileCommandPattern("rm *")] },
];

describe("scanArithmetic", () => {
  it.each([
    ["1 + 2 * 3", [], []],
    ["n * 2", ["n"], []],
    ["$n + ${m}", ["n", "m"], []],
    ["i = 0; i < n; i++", ["n"], ["i"]],
    ["16#ff + 0x1F + 2#101", [], []],
    ["$# + $? + RANDOM", ["RANDOM"], []],
    ["a[i] += 1", ["a", "i"], []],
    ["x = y", ["y"], ["x"]],
    ["${#s} + ${#a[@]}", [], []],
  ])("%j names %j, assigns %j", (text, names, assigned) => {
    const scan = scanArithmetic(text);
    expect(scan.unsafe).toBeNull();
    expect(scan.names).toEqual(names);
    expect(scan.assigned).toEqual(assigned);
  });

  it.each(["a[$(id)]", "`id`", "$1 + 1", "$@", "${x:-1}", "${x[0]}", "<(id)"])(
    "%j is unsafe",
    (text) => {
      expect(scanArithmetic(text).unsafe).not.toBeNull();
    },
  );

  it("treats nested $(( )) as arithmetic, not a substitution", () => {
    expect(scanArithmetic("$(( $((1 + 2)) * n ))")).toEqual({
      names: ["n"],
      assigned: [],
      unsafe: null,
    });
  });

  it("never calls text with a command substitution safe", () => {
    // `$$(id)` is `$$` then `(id)`, as bash reads it: no substitution there.
    const prefix = fc.string().filter((s) => !s.endsWith("$"));
    fc.assert(
      fc.property(prefix, fc.string(), fc.boolean(), (before, after, backquote) => {
        const code = backquote ? "`id`" : "$(id)";
        expect(scanArithmetic(`${before}${code}${after}`).unsafe).not.toBeNull();
      }),
    );
  });
});

describe("hiddenScripts", () => {
  it.each([
    ["a[$(rm -rf x)]", ["rm -rf x"]],
    ["`id`", ["id"]],
    ["$(echo $(rm y))", ["echo $(rm y)"]],
    ["$(( $(rm z) + 1 ))", ["rm z"]],
    ["\\$(not code)", []],
    ["$(echo ')')", ["echo ')'"]],
  ])("%j hides %j", (text, scripts) => {
    expect(hiddenScripts(text)).toEqual({ scripts, complete: true });
  });

  it("says when a substitution does not end", () => {
    expect(hiddenScripts("a[$(rm x").complete).toBe(false);
    expect(hiddenScripts("`rm x").complete).toBe(false);
  });

  it("finds any simple script hidden in a subscript", () => {
    const body = fc.stringMatching(/^[a-z ./-]{1,20}$/);
    fc.assert(
      fc.property(body, (script) => {
        expect(hiddenScripts(`a[$(${script})]`).scripts).toEqual([script]);
      }),
    );
  });
});

describe("code in ${…} operator words", () => {
  let shell: ShellParser;
  beforeAll(async () => {
    shell = await loadShellParser();
  });

  const OPERATORS = [":-", ":=", ":+", ":?", "-", "=", "+", "?", "#", "##", "%", "%%", "/", "//"];
  const MORE = ["/#", "/%", "^", "^^", ",", ",,"];

  it.each([...OPERATORS, ...MORE].flatMap((op) => [`$(rm x)`, "`rm x`"].map((c) => [op, c])))(
    "${v%s%s} is denied for the rm it runs",
    (op, code) => {
      const verdict = judgeShell(shell.analyse(`v=abc; echo \${v${op}${code}}`), RULES);
      expect(verdict.decision, verdict.explanation).toBe("deny");
    },
  );

  it("an unending substitution in an operator word is never allowed", () => {
    const verdict = judgeShell(shell.analyse("echo ${v#`rm x}"), RULES);
    expect(verdict.decision).not.toBe("allow");
  });

  it("a value holding code is denied wherever arithmetic reads it", () => {
    const uses = ["$((x))", "${a[x]}", "${s:x}", "$[x]"];
    fc.assert(
      fc.property(fc.constantFrom(...uses), fc.constantFrom("$(rm y)", "`rm y`"), (use, code) => {
        const script = `x='a[${code}]'; s=abc; echo ${use}`;
        const verdict = judgeShell(shell.analyse(script), RULES);
        expect(verdict.decision, `${script}: ${verdict.explanation}`).toBe("deny");
      }),
    );
  });

  const operand = fc.oneof(fc.nat(999).map(String), fc.constantFrom("a", "b", "$a", "${b}"));
  const expression = fc
    .array(fc.tuple(operand, fc.constantFrom("+", "-", "*", "/", "%", "<<", "&", "==", "<")), {
      minLength: 1,
      maxLength: 6,
    })
    .map((parts) => `${parts.map(([o, op]) => `${o} ${op}`).join(" ")} 1`);

  it("arithmetic on literals and variables set to numbers stays allowed", () => {
    fc.assert(
      fc.property(expression, fc.nat(99), (expr, n) => {
        const script = `a=${n}; b=7; echo $((${expr})); (( ${expr} )) && echo ok`;
        const analysis = shell.analyse(script);
        expect(analysis.uncertainties, script).toEqual([]);
        expect(judgeShell(analysis, RULES).decision).toBe("allow");
      }),
    );
  });

  it("arithmetic on a variable the script does not set is never allowed", () => {
    fc.assert(
      fc.property(expression, fc.constantFrom("c", "$c", "${c}", "$1"), (expr, unknown) => {
        const script = `a=1; b=2; echo $((${expr} + ${unknown}))`;
        expect(judgeShell(shell.analyse(script), RULES).decision, script).not.toBe("allow");
      }),
    );
  });

  it("a script with more values than the guard reads is not allowed", () => {
    const names = Array.from({ length: 600 }, (_, i) => `v${i + 1}`);
    let script = `v0='${names.join("+")}';`;
    for (const name of names) for (let k = 0; k < 8; k++) script += `${name}=${k};`;
    const analysis = shell.analyse(`${script} echo $((v0))`);
    expect(analysis.uncertainties.map((u) => u.detail).join()).toMatch(/too many values/);
  });
});
