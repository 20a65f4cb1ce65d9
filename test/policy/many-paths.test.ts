import { describe, expect, it } from "vitest";
import { createPolicyEngine } from "../../src/policy/policy-engine.js";
import type { PolicyLayer } from "../../src/policy/policy-rule.js";
import { call } from "./support/policy-request.js";

// A model may send a path argument of as many strings as the argument cap allows (1 MB: about
// 200,000 short paths). Spreading an allow rule's hits into a call's arguments overflowed the
// stack past about 120,000 (a RangeError out of decide).
const layers: PolicyLayer[] = [
  {
    name: "project",
    rules: [
      { decision: "deny", tool: "copy_many", path: "**/.env", reason: "secrets" },
      { decision: "allow", tool: "copy_many", path: "**" },
    ],
  },
];
const many = { writes: true, policyArgs: { path: "paths" } };

describe("a call naming 150,000 paths", () => {
  it("is decided by its rules, not failed by the count", async () => {
    const engine = await createPolicyEngine({ layers, workspace: process.cwd() });
    const paths = Array.from({ length: 150_000 }, (_, i) => `f${i % 10}`);
    expect(await engine.decide(call("copy_many", { paths }, many))).toMatchObject({
      decision: "allow",
    });
    const denied = await engine.decide(call("copy_many", { paths: ["a", ".env"] }, many));
    expect(denied).toMatchObject({ decision: "deny", reason: "secrets" });
  });
});

describe("a shell command of 150,000 words", () => {
  it("is analysed and decided, not failed by the count", async () => {
    const engine = await createPolicyEngine({
      layers: [{ name: "project", rules: [] }],
      workspace: process.cwd(),
    });
    // `git add -- …`: every word after `--` is an operand git writes to the index.
    const command = `git add -- ${"a ".repeat(150_000)}`;
    const verdict = await engine.decide(call("run_command", { command }));
    expect(["ask", "deny"]).toContain(verdict.decision);
  });
});
