/**
 * Properties over generated input: the analyser never throws, uncertainty never yields allow,
 * and a denied command hidden anywhere in a chain of allowed ones is always denied.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { compileCommandPattern } from "./command-pattern.js";
import { judgeShell, type ShellRule } from "./judge-shell.js";
import { loadShellParser, type ShellParser } from "./shell-parser.js";

const RULES: ShellRule[] = [
  {
    id: "allow",
    decision: "allow",
    patterns: [
      "ls *",
      "echo *",
      "cat *",
      "grep *",
      "git status *",
      "git log *",
      "sudo *",
      "env *",
      "xargs *",
      "bash -c *",
      "sh -c *",
      "timeout *",
      "find *",
      "wc *",
    ].map(compileCommandPattern),
  },
  { id: "deny-rm", decision: "deny", patterns: [compileCommandPattern("rm *")] },
];

const ALLOWED = [
  "ls",
  "ls -la",
  "echo hi",
  'echo "a b"',
  "cat README.md",
  "grep -rn x src",
  "git status",
  "git log --oneline -3",
  "wc -l f",
  "find . -name '*.ts'",
];
const SEPARATORS = [" ; ", " && ", " || ", " | ", "\n", " & "];

/** Ways to hide `rm …` that bash would still run. */
const DISGUISES: ReadonlyArray<(cmd: string) => string> = [
  (c) => c,
  (c) => `\\${c}`,
  (c) => `"${c.split(" ")[0]}" ${c.split(" ").slice(1).join(" ")}`,
  (c) => `/bin/${c}`,
  (c) => `sudo ${c}`,
  (c) => `sudo -u root ${c}`,
  (c) => `env A=1 ${c}`,
  (c) => `timeout 5 ${c}`,
  (c) => `echo $(${c})`,
  (c) => `echo "\`${c}\`"`,
  (c) => `cat <(${c})`,
  (c) => `bash -c '${c}'`,
  (c) => `sh -c "bash -c '${c}'"`,
  (c) => `(${c})`,
  (c) => `{ ${c}; }`,
  (c) => `if true; then ${c}; fi`,
  (c) => `for i in 1 2; do ${c}; done`,
  (c) => `f() { ${c}; }`,
  (c) => `find . -exec ${c} {} \\;`,
  (c) => `xargs ${c}`,
  (c) => `x=$(${c})`,
  (c) => `echo "${c}" | sh`,
  (c) => `eval '${c}'`,
];

const DENIED = ["rm -rf /", "rm x", "rm -f a b c", "rm"];

describe("properties", () => {
  let shell: ShellParser;
  beforeAll(async () => {
    shell = await loadShellParser();
  });

  it("never throws, and never allows what is uncertain (arbitrary text)", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (script) => {
        const analysis = shell.analyse(script);
        const verdict = judgeShell(analysis, RULES);
        if (analysis.uncertainties.length > 0) expect(verdict.decision).not.toBe("allow");
      }),
      { numRuns: 500 },
    );
  });

  it("never throws on shell-flavoured text", () => {
    const pieces = fc.constantFrom(
      "ls",
      "rm",
      " ",
      ";",
      "&&",
      "|",
      "$(",
      ")",
      "`",
      "'",
      '"',
      "\\",
      "<<EOF\n",
      "\nEOF",
      "{",
      "}",
      "(",
      "bash -c ",
      "$x",
      "*",
      "=",
      "\n",
      "<(",
      ">",
      "2>&1",
      "eval ",
      "sudo ",
      "[[",
      "]]",
      "${",
      "#",
    );
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 40 }), (parts) => {
        const analysis = shell.analyse(parts.join(""));
        const verdict = judgeShell(analysis, RULES);
        if (analysis.uncertainties.length > 0) expect(verdict.decision).not.toBe("allow");
      }),
      { numRuns: 500 },
    );
  });

  it("denies a denied command inserted anywhere in a chain of allowed ones", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...ALLOWED), { minLength: 0, maxLength: 6 }),
        fc.array(fc.constantFrom(...SEPARATORS), { minLength: 7, maxLength: 7 }),
        fc.nat(),
        fc.constantFrom(...DENIED),
        fc.constantFrom(...DISGUISES),
        (allowed, separators, position, denied, disguise) => {
          const parts = [...allowed];
          parts.splice(position % (parts.length + 1), 0, disguise(denied));
          const script = parts
            .map((part, i) => (i === 0 ? part : `${separators[i - 1]}${part}`))
            .join("");
          const verdict = judgeShell(shell.analyse(script), RULES);
          expect(verdict.decision, `${script}\n${verdict.explanation}`).toBe("deny");
          expect(verdict.rule).toBe("deny-rm");
        },
      ),
      { numRuns: 400 },
    );
  });

  it("allows a chain of allowed commands (the analysis is not simply paranoid)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...ALLOWED), { minLength: 1, maxLength: 6 }),
        fc.array(fc.constantFrom(...SEPARATORS), { minLength: 6, maxLength: 6 }),
        (allowed, separators) => {
          const script = allowed
            .map((part, i) => (i === 0 ? part : `${separators[i - 1]}${part}`))
            .join("");
          const verdict = judgeShell(shell.analyse(script), RULES);
          expect(verdict.decision, `${script}\n${verdict.explanation}`).toBe("allow");
        },
      ),
      { numRuns: 200 },
    );
  });
});
