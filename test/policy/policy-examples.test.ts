import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { runPolicyCli } from "./support/run-policy-cli.js";

const examples = fileURLToPath(new URL("../../examples/policy/", import.meta.url));
const home = mkdtempSync(path.join(tmpdir(), "docket-policy-examples-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe("examples/policy", () => {
  it("docket policy test passes on the documented docket.yaml and cases.yaml", async () => {
    const result = await runPolicyCli(
      ["policy", "test", "cases.yaml", "--tool", "issue_refund:writes"],
      { cwd: examples, home },
    );
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^\d+ cases: \d+ passed, 0 failed, 0 without expect$/m);
  });

  it("docket policy check explains a denied compound command", async () => {
    const result = await runPolicyCli(
      ["policy", "check", "run_command", '{"command":"ls && rm -rf build"}', "--json"],
      { cwd: examples, home },
    );
    expect(JSON.parse(result.stdout)).toMatchObject({
      decision: "deny",
      rule: "no-deletions",
      layer: "project",
    });
  });
});

describe("docs/policy.md, docket protects itself", () => {
  it("docket policy check shows the self-protection deny for the store and for docket's CLI", async () => {
    const store = await runPolicyCli(
      ["policy", "check", "run_command", '{"command":"cat .docket/docket.db"}'],
      { cwd: examples, home },
    );
    expect(store.stdout).toContain("decision: deny");
    expect(store.stdout).toContain("rule:     docket:self-protection (layer docket)");
    expect(store.stdout).toContain(
      "reason:   '.docket/docket.db' is the store: docket protects its own files, so no tool may read or write them, whatever the policy allows.",
    );
    const approve = await runPolicyCli(
      [
        "policy",
        "check",
        "run_command",
        JSON.stringify({
          command: 'script -qc "docket approvals approve apr_1 --as me" /dev/null',
        }),
        "--json",
      ],
      { cwd: examples, home },
    );
    expect(JSON.parse(approve.stdout)).toMatchObject({
      decision: "deny",
      rule: "docket:self-protection",
      layer: "docket",
      reason: expect.stringContaining("the command runs docket itself"),
    });
  });
});

describe("docs/policy.md", () => {
  it("shows the example files exactly as they are", () => {
    const docs = readFileSync(
      fileURLToPath(new URL("../../docs/policy.md", import.meta.url)),
      "utf8",
    );
    for (const name of ["docket.yaml", "cases.yaml"]) {
      // The block may carry a marker after its language (test/docs-snippets.test.ts).
      const opening = `<!-- examples/policy/${name} -->\n\`\`\`yaml`;
      const at = docs.indexOf(opening);
      expect(at, name).toBeGreaterThanOrEqual(0);
      const start = docs.indexOf("\n", at + opening.length) + 1;
      const body = docs.slice(start, docs.indexOf("```", start));
      expect(body, name).toBe(readFileSync(path.join(examples, name), "utf8"));
    }
  });
});
