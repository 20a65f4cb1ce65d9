import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runPolicyCli } from "./support/run-policy-cli.js";

let dir: string;
let home: string;
const cli = (args: string[], env?: Record<string, string>) =>
  runPolicyCli(args, { cwd: dir, home, ...(env ? { env } : {}) });

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), "docket-policy-cli-"));
  home = path.join(dir, "home");
  mkdirSync(home);
  writeFileSync(
    path.join(dir, "docket.yaml"),
    `policy:
  rules:
    - decision: deny
      tool: run_command
      command: "rm *"
      reason: no deletions
    - decision: ask
      tool: issue_refund
      when: args.amount > 150
      approvers: ["role:lead"]
`,
  );
  writeFileSync(
    path.join(dir, "cases.yaml"),
    `cases:
  - { tool: run_command, args: { command: "ls && rm -rf x" }, expect: deny }
  - { tool: read_file, args: { path: README.md }, expect: [allow, ask] }
  - { tool: write_file, args: { path: a.txt, content: "x" } }
`,
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("docket policy check", () => {
  it("prints the decision, the rule and the explanation from ./docket.yaml", async () => {
    const result = await cli(["policy", "check", "run_command", '{"command":"ls; rm -rf /"}']);
    // Exit 1 on deny, so a script can gate on it.
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("decision: deny");
    expect(result.stdout).toContain("rule:     project:0 (layer project)");
    expect(result.stdout).toContain("sub-command: rm -rf /");
  });

  it("prints one JSON object with --json", async () => {
    const result = await cli(["policy", "check", "read_file", '{"path":"a"}', "--json"]);
    expect(result.code).toBe(0);
    const verdict = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(Object.keys(verdict).sort()).toEqual([
      "decision",
      "explanation",
      "layer",
      "reason",
      "rule",
    ]);
    expect(verdict).toMatchObject({ decision: "allow", rule: "default:reads", layer: "default" });
  });

  it("knows tools declared with --tool", async () => {
    const refund = await cli([
      "policy",
      "check",
      "issue_refund",
      '{"amount":200}',
      "--tool",
      "issue_refund:writes",
      "--json",
    ]);
    expect(JSON.parse(refund.stdout)).toMatchObject({ decision: "ask", rule: "project:1" });
    const unknown = await cli(["policy", "check", "issue_refund", '{"amount":200}']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown tool "issue_refund"');
  });

  it("reports unreadable or invalid arguments as the checkpoint's refusal, never as allow (exit 1)", async () => {
    for (const [args, refusal] of [
      ["{not json", "unreadable_arguments"],
      ["[1]", "unreadable_arguments"],
      ['{"path":"a","path":"b"}', "unreadable_arguments"],
      ['{"path":1}', "invalid_arguments"],
      ['{"path":"a","also":"b"}', "invalid_arguments"],
    ]) {
      const result = await cli(["policy", "check", "read_file", String(args), "--json"]);
      expect(result.code, String(args)).toBe(1);
      expect(JSON.parse(result.stdout)).toMatchObject({ decision: "refused", refusal });
    }
    const ok = await cli(["policy", "check", "read_file", '{"path":"a"}']);
    expect(ok.code).toBe(0);
    const ask = await cli(["policy", "check", "write_file", '{"path":"a","content":"x"}']);
    expect(ask.code).toBe(3);
  });

  it("exits 2 on a policy that does not load, naming file and line", async () => {
    writeFileSync(
      path.join(dir, "bad.yaml"),
      "policy:\n  rules:\n    - decision: deny\n      tool: x\n      when: args.a >\n",
    );
    const bad = await cli(["policy", "check", "read_file", "{}", "--config", "bad.yaml"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("bad.yaml:5: rules[0].when: CEL:");
  });

  it("includes the managed layer named by DOCKET_MANAGED_POLICY", async () => {
    writeFileSync(
      path.join(dir, "org.yaml"),
      "policy:\n  rules:\n    - { decision: deny, tool: read_file, reason: org says no }\n",
    );
    const result = await cli(["policy", "check", "read_file", '{"path":"a"}', "--json"], {
      DOCKET_MANAGED_POLICY: path.join(dir, "org.yaml"),
    });
    expect(JSON.parse(result.stdout)).toMatchObject({
      decision: "deny",
      layer: "managed",
      reason: "org says no",
    });
  });
});

describe("docket policy test", () => {
  it("prints each case and exits 0 when every expectation holds", async () => {
    const result = await cli(["policy", "test", "cases.yaml"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^ok {3}deny {2}run_command/m);
    expect(result.stdout).toContain("3 cases: 2 passed, 0 failed, 1 without expect");
  });

  it("sends each case through the checkpoint's validation: an incomplete call is refused, not allowed", async () => {
    writeFileSync(
      path.join(dir, "incomplete.yaml"),
      "cases:\n  - { tool: write_file, args: { path: a.txt }, expect: allow }\n  - { tool: write_file, args: { path: a.txt }, expect: deny }\n",
    );
    const result = await cli(["policy", "test", "incomplete.yaml"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^FAIL deny {2}write_file .*refused:invalid_arguments/m);
    expect(result.stdout).toMatch(/^ok {3}deny {2}write_file/m);
    expect(result.stdout).toContain("/content: Invalid input");
  });

  it("prints one JSON line per case with --json", async () => {
    const result = await cli(["policy", "test", "cases.yaml", "--json"]);
    const lines = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatchObject({
      tool: "run_command",
      args: { command: "ls && rm -rf x" },
      decision: "deny",
      rule: "project:0",
      layer: "project",
    });
    expect(lines[2]).toEqual({
      tool: "write_file",
      args: { path: "a.txt", content: "x" },
      decision: "ask",
      rule: "default:writes",
      layer: "default",
    });
  });

  it("exits 1 when a case gets an unexpected decision", async () => {
    writeFileSync(
      path.join(dir, "failing.yaml"),
      "cases:\n  - { tool: run_command, args: { command: rm x }, expect: allow }\n",
    );
    const result = await cli(["policy", "test", "failing.yaml"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("FAIL deny");
    expect(result.stdout).toContain("(expected allow)");
  });

  it("exits 2 on a bad cases file or an unknown tool, never skipping it", async () => {
    writeFileSync(
      path.join(dir, "unknown-tool.yaml"),
      "cases:\n  - tool: read_file\n    args: {}\n  - tool: no_such_tool\n    args: {}\n",
    );
    const unknown = await cli(["policy", "test", "unknown-tool.yaml"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(
      'unknown-tool.yaml:4: cases[1].tool: unknown tool "no_such_tool"',
    );
    writeFileSync(
      path.join(dir, "bad-expect.yaml"),
      "cases:\n  - { tool: read_file, args: {}, expect: maybe }\n",
    );
    expect((await cli(["policy", "test", "bad-expect.yaml"])).code).toBe(2);
    writeFileSync(path.join(dir, "broken.yaml"), "cases: [\n");
    const broken = await cli(["policy", "test", "broken.yaml"]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/broken\.yaml:\d+: YAML:/);
    expect((await cli(["policy", "test", "missing.yaml"])).code).toBe(2);
  });
});

describe("docket policy check without commander (the plain form)", () => {
  it("prints and exits as commander's path does, bad input included", async () => {
    const cases = [
      ["run_command", '{"command":"ls; rm -rf /"}'],
      ["read_file", '{"path":"a"}', "--json"],
      ["read_file"],
      ["read_file", "{not json"],
      ["read_file", '{"path":1}', "--json"],
      ["no_such_tool", "{}"],
      ["write_file", '{"path":"a.txt","content":"x"}'],
    ];
    for (const args of cases) {
      // `--principal cli` is the default: the same question, read by commander.
      const fast = await cli(["policy", "check", ...args]);
      const commander = await cli(["policy", "check", "--principal", "cli", ...args]);
      expect(fast, args.join(" ")).toEqual(commander);
    }
  });
});
