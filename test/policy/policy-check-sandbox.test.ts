import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { probeSandbox } from "../../src/sandbox/probe-sandbox.js";
import { runPolicyCli } from "./support/run-policy-cli.js";

// `policy check` answers what a run here would do: the policy's verdict after the sandbox's
// say, as the checkpoint applies it. `policyDecision` keeps the policy's own answer.

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function project(sandbox: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), "docket-check-sandbox-"));
  dirs.push(dir);
  writeFileSync(
    path.join(dir, "docket.yaml"),
    `sandbox: ${sandbox}
policy:
  rules:
    - { id: ls-ok, decision: allow, tool: run_command, command: "ls *" }
    - { id: no-rm, decision: deny, tool: run_command, command: "rm *" }
`,
  );
  return dir;
}

async function check(dir: string, command: string) {
  const result = await runPolicyCli(
    ["policy", "check", "run_command", JSON.stringify({ command }), "--json"],
    { cwd: dir, home: dir },
  );
  return { code: result.code, answer: JSON.parse(result.stdout) as Record<string, unknown> };
}

describe("docket policy check and the sandbox", () => {
  it("without bubblewrap under auto, an allowed command is asked, as a run would ask it", async () => {
    const dir = project("{ mode: auto, bwrap: /nonexistent/bwrap }");
    const { code, answer } = await check(dir, "ls -la");
    expect(code).toBe(3);
    expect(answer).toMatchObject({ decision: "ask", rule: "ls-ok", policyDecision: "allow" });
    expect(String(answer.reason)).toContain("not sandboxed");
  });

  it("without bubblewrap under required, it is denied by sandbox:required", async () => {
    const dir = project("{ mode: required, bwrap: /nonexistent/bwrap }");
    const { code, answer } = await check(dir, "ls -la");
    expect(code).toBe(1);
    expect(answer).toMatchObject({
      decision: "deny",
      rule: "sandbox:required",
      policyDecision: "allow",
    });
  });

  it("a deny stays the policy's, and mode off changes nothing", async () => {
    const denied = await check(
      project("{ mode: required, bwrap: /nonexistent/bwrap }"),
      "rm -rf x",
    );
    expect(denied.answer).toMatchObject({ decision: "deny", rule: "no-rm" });
    expect(denied.answer.policyDecision).toBeUndefined();
    const off = await check(project("{ mode: off }"), "ls -la");
    expect(off.code).toBe(0);
    expect(off.answer).toMatchObject({ decision: "allow", rule: "ls-ok" });
    expect(off.answer.policyDecision).toBeUndefined();
  });

  it.skipIf(probeSandbox().status !== "available")(
    "with bubblewrap here, an allowed command stays allowed",
    async () => {
      const { code, answer } = await check(project("{ mode: required }"), "ls -la");
      expect(code).toBe(0);
      expect(answer).toMatchObject({ decision: "allow", rule: "ls-ok" });
    },
  );
});
