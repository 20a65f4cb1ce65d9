import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPolicyEngine } from "../../src/policy/policy-engine.js";
import type { PolicyLayer, PolicyRuleSpec } from "../../src/policy/policy-rule.js";
import { call } from "./support/policy-request.js";

const project = (...rules: PolicyRuleSpec[]): PolicyLayer => ({ name: "project", rules });
const engineOf = (...layers: PolicyLayer[]) =>
  createPolicyEngine({ layers, workspace: process.cwd() });

describe("tool matcher", () => {
  it("matches a name, a glob or a list", async () => {
    const engine = await engineOf(
      project(
        { decision: "deny", tool: "mcp__github__*", reason: "no GitHub" },
        { decision: "ask", tool: ["issue_refund", "escalate_*"] },
      ),
    );
    expect(engine.decide(call("mcp__github__create_issue"))).toMatchObject({
      decision: "deny",
      rule: "project:0",
      reason: "no GitHub",
    });
    expect(engine.decide(call("mcp__gitlab__x"))).toMatchObject({
      decision: "allow",
      rule: "default:reads",
    });
    expect(engine.decide(call("escalate_to_human"))).toMatchObject({
      decision: "ask",
      rule: "project:1",
    });
  });

  it("decides synchronously when no shell analysis is involved", async () => {
    const engine = await engineOf(project({ decision: "deny", tool: "read_file" }));
    expect(engine.decide(call("read_file"))).not.toBeInstanceOf(Promise);
  });
});

describe("command matcher (shell analysis)", () => {
  const rules = project(
    { decision: "deny", tool: "run_command", command: "rm *", reason: "no deletions" },
    { decision: "allow", tool: "run_command", command: ["ls *", "git status *", "grep *"] },
  );

  it("denies when any sub-command matches a deny rule, and names it", async () => {
    const engine = await engineOf(rules);
    const verdict = await engine.decide(
      call("run_command", { command: "ls && (cd /tmp; rm -rf x)" }),
    );
    expect(verdict).toMatchObject({
      decision: "deny",
      rule: "project:0",
      reason: "no deletions",
      command: "rm -rf x",
    });
    expect(verdict.explanation).toContain("sub-command: rm -rf x");
    expect(
      await engine.decide(call("run_command", { command: "bash -c 'rm -rf /'" })),
    ).toMatchObject({ decision: "deny" });
  });

  it("allows only when every sub-command is covered by an allow rule", async () => {
    const engine = await engineOf(rules);
    expect(await engine.decide(call("run_command", { command: "ls -la | grep x" }))).toMatchObject({
      decision: "allow",
      rule: "project:1",
    });
    // `touch` is covered by no rule: the write default applies.
    expect(await engine.decide(call("run_command", { command: "ls && touch x" }))).toMatchObject({
      decision: "ask",
      rule: "default:writes",
    });
  });

  it("never allows what cannot be analysed", async () => {
    const engine = await engineOf(rules);
    const verdict = await engine.decide(call("run_command", { command: 'ls $(echo "$CMD")' }));
    expect(verdict.decision).not.toBe("allow");
    const evaled = await engine.decide(call("run_command", { command: 'eval "$x"' }));
    expect(evaled).toMatchObject({ decision: "ask", rule: "shell:uncertain", layer: "shell" });
    expect(await engine.decide(call("run_command", { command: 42 }))).toMatchObject({
      decision: "ask",
    });
  });

  it("combines allow rules from different layers to cover a compound command", async () => {
    const engine = await engineOf(
      {
        name: "user",
        rules: [{ decision: "allow", tool: "run_command", command: "git status *" }],
      },
      project({ decision: "allow", tool: "run_command", command: "ls *" }),
    );
    expect(await engine.decide(call("run_command", { command: "git status && ls" }))).toMatchObject(
      { decision: "allow" },
    );
  });

  it("never matches a tool that declares no command argument", async () => {
    const engine = await engineOf(project({ decision: "deny", tool: "*", command: "rm *" }));
    expect(await engine.decide(call("my_tool", { command: "rm -rf /" }))).toMatchObject({
      decision: "allow",
      rule: "default:reads",
    });
    expect(
      await engine.decide(call("my_tool", { cmd: "rm -rf /" }, { policyArgs: { command: "cmd" } })),
    ).toMatchObject({ decision: "deny" });
  });

  it("loads the parser lazily for a command rule granted later", async () => {
    const engine = await engineOf(
      project({ decision: "deny", tool: "read_file", path: "**/.env" }),
    );
    engine.grant({ decision: "deny", tool: "run_command", command: "rm *" });
    expect(await engine.decide(call("run_command", { command: "rm x" }))).toMatchObject({
      decision: "deny",
      rule: "session:0",
    });
  });
});

describe("path matcher", () => {
  let root: string;
  let workspace: string;
  let home: string;
  beforeAll(() => {
    root = realpathSync(mkdtempSync(path.join(tmpdir(), "docket-engine-")));
    workspace = path.join(root, "ws");
    home = path.join(root, "home");
    mkdirSync(path.join(workspace, "src"), { recursive: true });
    mkdirSync(path.join(home, ".ssh"), { recursive: true });
    writeFileSync(path.join(home, ".ssh", "id_rsa"), "secret");
    symlinkSync(path.join(home, ".ssh", "id_rsa"), path.join(workspace, "notes.txt"));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const engine = () =>
    createPolicyEngine({
      workspace,
      home,
      layers: [
        project(
          {
            decision: "deny",
            tool: "read_file",
            path: ["**/.env", "~/.ssh/**"],
            reason: "secrets",
          },
          { decision: "allow", tool: ["write_file", "copy_files"], path: "src/**" },
        ),
      ],
    });

  it("judges paths for what they really are: .. and symlinks resolved", async () => {
    const policy = await engine();
    expect(policy.decide(call("read_file", { path: "src/../.env" }))).toMatchObject({
      decision: "deny",
      matched: expect.stringContaining('~ "**/.env"'),
    });
    const viaLink = await policy.decide(call("read_file", { path: "notes.txt" }));
    expect(viaLink).toMatchObject({ decision: "deny", reason: "secrets" });
    expect(viaLink.explanation).toContain(path.join(home, ".ssh", "id_rsa"));
    expect(policy.decide(call("read_file", { path: "src/index.ts" }))).toMatchObject({
      decision: "allow",
      rule: "default:reads",
    });
  });

  it("allows only when every path argument matches", async () => {
    const policy = await engine();
    expect(policy.decide(call("write_file", { path: "src/a.ts" }))).toMatchObject({
      decision: "allow",
    });
    expect(policy.decide(call("write_file", { path: "src/../package.json" }))).toMatchObject({
      decision: "ask",
    });
    const copy = { writes: true, policyArgs: { path: ["from", "to"] } };
    expect(policy.decide(call("copy_files", { from: "src/a", to: "src/b" }, copy))).toMatchObject({
      decision: "allow",
    });
    expect(policy.decide(call("copy_files", { from: "src/a", to: "../b" }, copy))).toMatchObject({
      decision: "ask",
    });
  });
});

describe("host matcher", () => {
  const layers = [
    project(
      { decision: "allow", tool: "fetch_url", host: ["docs.python.org", "*.github.com"] },
      { decision: "deny", tool: "fetch_url", host: "evil.com", reason: "known bad" },
    ),
  ];

  it("allows listed hosts over http(s) only", async () => {
    const engine = await engineOf(...layers);
    expect(engine.decide(call("fetch_url", { url: "https://docs.python.org/3/" }))).toMatchObject({
      decision: "allow",
      rule: "project:0",
    });
    expect(engine.decide(call("fetch_url", { url: "ftp://docs.python.org/x" }))).toMatchObject({
      rule: "default:reads",
    });
    expect(engine.decide(call("fetch_url", { url: "https://github.com/" }))).toMatchObject({
      rule: "default:reads",
    });
  });

  it("sees through userinfo and still denies other schemes by host", async () => {
    const engine = await engineOf(...layers);
    expect(
      engine.decide(call("fetch_url", { url: "https://docs.python.org@evil.com/" })),
    ).toMatchObject({ decision: "deny", reason: "known bad" });
    expect(engine.decide(call("fetch_url", { url: "ftp://evil.com/payload" }))).toMatchObject({
      decision: "deny",
    });
  });
});

describe("when matcher (CEL)", () => {
  const refund = (args: Record<string, unknown>) => call("issue_refund", args, { writes: true });

  it("asks above a ceiling, with the approvers of the rule", async () => {
    const engine = await engineOf(
      project(
        {
          decision: "ask",
          tool: "issue_refund",
          when: "args.amount > 150",
          approvers: ["role:lead"],
          reason: "refunds over 150 USD need a lead",
        },
        { decision: "allow", tool: "issue_refund", when: "args.amount <= 150" },
      ),
    );
    expect(engine.decide(refund({ amount: 200 }))).toMatchObject({
      decision: "ask",
      approvers: ["role:lead"],
      reason: "refunds over 150 USD need a lead",
    });
    expect(engine.decide(refund({ amount: 20 }))).toMatchObject({
      decision: "allow",
      rule: "project:1",
    });
  });

  it("counts an evaluation failure as matched for deny and ask, not for allow, and says so", async () => {
    const engine = await engineOf(
      project(
        { decision: "allow", tool: "issue_refund", when: "args.amount <= 150" },
        { decision: "ask", tool: "issue_refund", when: "args.currency != 'USD'" },
      ),
    );
    const verdict = await engine.decide(refund({ amount: 20 }));
    expect(verdict).toMatchObject({ decision: "ask", rule: "project:1" });
    expect(verdict.explanation).toMatch(
      /when "args.currency != 'USD'" failed \(.*currency.*\): an ask rule counts it as matched/,
    );
    const noAmount = await engine.decide(refund({ currency: "USD" }));
    expect(noAmount).toMatchObject({ decision: "ask", rule: "default:writes" });
    expect(noAmount.explanation).toContain("an allow rule does not count it as matched");
  });

  it("treats a non-boolean result as a failure", async () => {
    const engine = await engineOf(project({ decision: "deny", tool: "t", when: "args.flag" }));
    expect(engine.decide(call("t", { flag: "yes" }))).toMatchObject({ decision: "deny" });
  });
});
