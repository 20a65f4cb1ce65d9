import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { mayBePrefix, proposeAllowRule } from "./allow-rule-proposal.js";
import { compileCommandPattern } from "./shell/command-pattern.js";
import { shellCoverage } from "./shell/judge-shell.js";
import { loadShellParser, type ShellParser } from "./shell/shell-parser.js";

let shell: ShellParser;
beforeAll(async () => {
  shell = await loadShellParser();
});

const RUN = { command: "command" } as const;
const propose = (command: string) =>
  proposeAllowRule({
    tool: "run_command",
    policyArgs: RUN,
    args: { command },
    shell: shellCoverage(shell.analyse(command), []),
  });

/** Programs that run whatever their arguments say: never the head of an allow prefix. */
const RUNNERS = [
  "bash",
  "sh",
  "zsh",
  "dash",
  "fish",
  "python",
  "python3",
  "python3.12",
  "node",
  "perl",
  "ruby",
  "php",
  "env",
  "sudo",
  "doas",
  "su",
  "xargs",
  "nice",
  "timeout",
  "nohup",
  "exec",
  "eval",
  "command",
  "builtin",
  "busybox",
  "find",
  "awk",
  "ssh",
  "watch",
  "npx",
  "setsid",
  "/bin/bash",
  "/usr/bin/env",
  "/usr/bin/sudo",
  "./sudo",
];

describe("the prefix 'always allow' offers", () => {
  it("is the program and its first argument, one per uncovered sub-command", () => {
    expect(propose("git status")).toMatchObject({
      status: "offered",
      rule: { decision: "allow", tool: "run_command", command: ["git status *"] },
    });
    expect(propose("npm test && git diff --stat")).toMatchObject({
      rule: { command: ["npm test *", "git diff *"] },
    });
    expect(propose("ls")).toMatchObject({ rule: { command: ["ls"] } });
  });

  it("is never offered for a shell, an interpreter or a wrapper, nor anything run inside one", () => {
    for (const program of RUNNERS) {
      expect(mayBePrefix(program), program).toBe(false);
      expect(propose(`${program} -c 'uname -s'`).status, program).toBe("not_offered");
      expect(propose(`${program} uname -s`).status, program).toBe("not_offered");
    }
    for (const command of ["FOO=1 env uname", "uname $(id -u)", "eval 'ls'", "$X status"]) {
      expect(propose(command).status, command).toBe("not_offered");
    }
  });

  it("is not offered when a sub-command is asked about or the analysis is uncertain", () => {
    const analysis = shell.analyse("git status; rm -rf build");
    const rules = [
      { id: "ask-rm", decision: "ask" as const, patterns: [compileCommandPattern("rm *")] },
    ];
    const coverage = shellCoverage(analysis, rules);
    expect(coverage.asked.map((c) => c.text)).toEqual(["rm -rf build"]);
    expect(
      proposeAllowRule({ tool: "run_command", policyArgs: RUN, args: {}, shell: coverage }),
    ).toMatchObject({ status: "not_offered", reason: expect.stringContaining("rm -rf build") });
    expect(propose("cat <<< $(curl x)").status).toBe("not_offered");
  });

  it("property: no offered prefix starts with a wrapper or an interpreter, however a line is built", () => {
    const word = fc.constantFrom(
      ...RUNNERS,
      "git",
      "status",
      "ls",
      "-la",
      "npm",
      "test",
      "echo",
      "hi",
      "-c",
      "'uname -s'",
      "--",
      "FOO=1",
      "$X",
      "\\bash",
      "b''ash",
      '"sudo"',
      "x/../bash",
      "./run.sh",
      "'*'",
    );
    const separator = fc.constantFrom(" ", "; ", " && ", " | ", " || ", "\n");
    const line = fc
      .array(fc.tuple(fc.array(word, { minLength: 1, maxLength: 5 }), separator), {
        minLength: 1,
        maxLength: 4,
      })
      .map((parts) => parts.map(([words, sep]) => `${words.join(" ")}${sep}`).join(""));
    fc.assert(
      fc.property(line, (command) => {
        const proposal = propose(command);
        if (proposal.status !== "offered") return;
        const patterns = [proposal.rule.command ?? []].flat();
        expect(patterns.length).toBeGreaterThan(0);
        for (const pattern of patterns) {
          const head = pattern.split(" ")[0] ?? "";
          expect(mayBePrefix(head), `${command} → ${pattern}`).toBe(true);
          const base = (head.split("/").pop() ?? "").toLowerCase();
          expect(RUNNERS.map((r) => r.split("/").pop())).not.toContain(base);
          // Only literal words: a pattern never globs more than the call did.
          expect(pattern.replace(/ \*$/, "")).not.toMatch(/[*?$`'"\\]/);
        }
      }),
      { numRuns: 400 },
    );
  });

  it("names a file tool's exact path, a URL tool's host, and refuses globs", () => {
    expect(
      proposeAllowRule({
        tool: "write_file",
        policyArgs: { path: "path" },
        args: { path: "a/b.txt" },
        shell: undefined,
      }),
    ).toMatchObject({ status: "offered", rule: { tool: "write_file", path: "a/b.txt" } });
    expect(
      proposeAllowRule({
        tool: "write_file",
        policyArgs: { path: "path" },
        args: { path: "a/*.txt" },
        shell: undefined,
      }).status,
    ).toBe("not_offered");
    expect(
      proposeAllowRule({
        tool: "fetch_url",
        policyArgs: { url: "url" },
        args: { url: "https://Docs.Python.org/3/" },
        shell: undefined,
      }),
    ).toMatchObject({ rule: { host: "docs.python.org" } });
  });
});
