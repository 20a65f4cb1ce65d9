import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { docketProtection } from "../../src/cli/docket-protection.js";
import type { PolicyVerdict } from "../../src/policy/policy.js";
import { createPolicyEngine } from "../../src/policy/policy-engine.js";
import type { PolicyLayer } from "../../src/policy/policy-rule.js";
import { HIDDEN } from "./support/hidden-execution-cases.js";
import { call } from "./support/policy-request.js";

// `shellParser: "when-needed"` (what `docket policy check` uses) judges plain-words commands
// without tree-sitter. Its verdicts must be the very ones of an engine that reads every script
// with tree-sitter: same decision, rule, layer and explanation, self-protection and path rules
// included. The reference verdicts are taken with the plain-words reader switched off, so the
// fast path is not compared with itself.
const plainReader = vi.hoisted(() => ({ on: true }));
vi.mock("../../src/policy/shell/plain-words-tree.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/policy/shell/plain-words-tree.js")>();
  return {
    ...real,
    plainWordsTree: (script: string) => (plainReader.on ? real.plainWordsTree(script) : undefined),
  };
});

/** An at-start engine's verdict with every script read by tree-sitter. */
function treeSitterVerdict(
  engine: Awaited<ReturnType<typeof createPolicyEngine>>,
  request: ReturnType<typeof call>,
): PolicyVerdict {
  plainReader.on = false;
  try {
    const verdict = engine.decide(request);
    // Synchronous, so the reader is off for the whole reading.
    if (verdict instanceof Promise) throw new Error("an at-start engine decided asynchronously");
    return verdict;
  } finally {
    plainReader.on = true;
  }
}

let ws: string;
let home: string;
let layers: PolicyLayer[];
let options: Parameters<typeof createPolicyEngine>[0];

beforeAll(async () => {
  ws = await realpath(await mkdtemp(join(tmpdir(), "docket-plain-")));
  home = await realpath(await mkdtemp(join(tmpdir(), "docket-plain-home-")));
  await mkdir(join(ws, ".docket"));
  await writeFile(join(ws, ".docket", "docket.db"), "");
  layers = [
    {
      name: "project",
      rules: [
        {
          id: "safe",
          decision: "allow",
          tool: "run_command",
          command: ["ls *", "cat *", "git status"],
        },
        { id: "no-rm", decision: "deny", tool: "run_command", command: "rm *" },
        { id: "push", decision: "ask", tool: "run_command", command: "git push *" },
        { id: "no-env", decision: "deny", tool: "*", path: ["**/.env"] },
      ],
    },
  ];
  options = {
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
  };
});

afterAll(async () => {
  await rm(ws, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
});

const PROGRAMS = ["ls", "cat", "rm", "git", "sudo", "env", "bash", "sh", "xargs", "timeout"];
const WORDS = [
  ...PROGRAMS,
  "status",
  "push",
  "-c",
  "-la",
  "-rf",
  "-u",
  "root",
  "5",
  ".env",
  "src/.env",
  ".docket/docket.db",
  "./.docket/../.docket/docket.db",
  "docket.yaml",
  "README.md",
  "A=1",
  "BASH_ENV=x",
  "eval",
  "exec",
  "command",
  "|",
  ";",
  "$HOME",
];
const command = fc
  .tuple(fc.constantFrom(...PROGRAMS), fc.array(fc.constantFrom(...WORDS), { maxLength: 5 }))
  .map(([program, rest]) => [program, ...rest].join(" "));

/** What a verdict says, without the parts that name no decision (timings, ids). */
const said = (verdict: PolicyVerdict) => ({
  decision: verdict.decision,
  rule: verdict.rule,
  layer: verdict.layer,
  reason: verdict.reason,
  explanation: verdict.explanation,
  shell: verdict.shell,
});

describe("plain-words commands decided without tree-sitter", () => {
  it("are compared with an engine whose plain-words reader is off", async () => {
    const request = call("run_command", { command: "ls -la" });
    const fresh = () => createPolicyEngine({ ...options, shellParser: "when-needed" });
    plainReader.on = false;
    const reference = (await fresh()).decide(request);
    plainReader.on = true;
    // Without the fast reader even `ls -la` needs tree-sitter, so its decision awaits the load.
    expect(reference).toBeInstanceOf(Promise);
    await reference;
    expect((await fresh()).decide(request)).not.toBeInstanceOf(Promise);
  });

  it("get the verdicts of an engine that loaded tree-sitter at start", async () => {
    const scripts = fc.sample(command, { numRuns: 400, seed: 20 });
    const eager = await createPolicyEngine(options);
    // Its plain path runs until a command with syntax makes it load its own parser.
    const lazy = await createPolicyEngine({ ...options, shellParser: "when-needed" });
    let synchronous = 0;
    for (const script of scripts) {
      const request = call("run_command", { command: script });
      const answer = lazy.decide(request);
      if (!(answer instanceof Promise)) synchronous++;
      const expected = said(treeSitterVerdict(eager, request));
      expect(said(await answer), script).toEqual(expected);
    }
    expect(synchronous).toBeGreaterThan(50);
  });

  it("still protects docket's files and the paths of deny rules", async () => {
    const lazy = await createPolicyEngine({ ...options, shellParser: "when-needed" });
    for (const script of [
      "cat .docket/docket.db",
      "ls ./.docket/../.docket/docket.db",
      "sudo cat .docket/docket.db",
      "cat src/.env",
      "rm -rf .docket",
    ]) {
      const answer = lazy.decide(call("run_command", { command: script }));
      expect(answer, script).not.toBeInstanceOf(Promise);
      expect(((await answer) as PolicyVerdict).decision, script).toBe("deny");
    }
  });

  it("allows none of the hidden executions, the plain-words git ones decided without tree-sitter", async () => {
    const permissive: PolicyLayer[] = [
      {
        name: "project",
        rules: [
          { id: "no-rm", decision: "deny", tool: "run_command", command: "rm *" },
          {
            id: "open",
            decision: "allow",
            tool: "run_command",
            command: ["git *", "ls *", "cat *", "echo *"],
          },
        ],
      },
    ];
    const eager = await createPolicyEngine({ layers: permissive, workspace: ws, home });
    const lazy = await createPolicyEngine({
      layers: permissive,
      workspace: ws,
      home,
      shellParser: "when-needed",
    });
    // The plain ones first, so the lazy engine decides them before it has loaded its parser.
    const syntax = (script: string) => Number(/[^ \w./,:@+%=-]/.test(script));
    const ordered = [...HIDDEN].sort((a, b) => syntax(a.script) - syntax(b.script));
    let synchronous = 0;
    for (const { script } of ordered) {
      const request = call("run_command", { command: script });
      const answer = lazy.decide(request);
      if (!(answer instanceof Promise)) synchronous++;
      const verdict = said(await answer);
      expect(verdict.decision, script).not.toBe("allow");
      expect(verdict, script).toEqual(said(treeSitterVerdict(eager, request)));
    }
    // The git cases of plain words (git archive -o M, git log --output=M …) are among them.
    expect(synchronous).toBeGreaterThanOrEqual(10);
  });
});

describe("a when-needed engine without self-protection or path rules", () => {
  it("still tells an ask which sub-commands no rule covered, on the call that loads tree-sitter", async () => {
    const shellOnly: PolicyLayer[] = [
      {
        name: "project",
        rules: [
          { id: "safe", decision: "allow", tool: "run_command", command: ["ls *", "git status"] },
          { id: "push", decision: "ask", tool: "run_command", command: "git push *" },
        ],
      },
    ];
    for (const script of ["git push origin main && ls", "ls | wc", "npm test; ls"]) {
      // A fresh engine each time: the first command with syntax is the one that loads it.
      const lazy = await createPolicyEngine({
        layers: shellOnly,
        workspace: ws,
        home,
        shellParser: "when-needed",
      });
      const eager = await createPolicyEngine({ layers: shellOnly, workspace: ws, home });
      const request = call("run_command", { command: script });
      const first = (await lazy.decide(request)) as PolicyVerdict;
      expect(first.shell, script).toBeDefined();
      expect(said(first), script).toEqual(said(treeSitterVerdict(eager, request)));
    }
  });
});
