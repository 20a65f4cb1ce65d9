import { describe, expect, it } from "vitest";
import { toolFromMeta } from "./builtin-tool-meta.js";
import { createPolicyEngine } from "./policy-engine.js";
import { createPolicyHolder } from "./policy-holder.js";
import type { PolicyRuleSpec } from "./policy-rule.js";

const engineOf = (rules: PolicyRuleSpec[]) =>
  createPolicyEngine({ layers: [{ name: "project", rules }], workspace: "/ws", home: "/home/u" });
const request = (name: string, args: Record<string, unknown>, sessionId?: string) => ({
  tool: toolFromMeta(name, { writes: name !== "read_file", policyArgs: { path: "path" } }),
  args,
  rawArguments: JSON.stringify(args),
  callId: "c1",
  principal: "cli",
  sessionId,
});

describe("createPolicyHolder", () => {
  it("decides with the engine in force at call time, and carries session grants over a reload", async () => {
    const holder = createPolicyHolder(await engineOf([{ decision: "allow", tool: "read_file" }]));
    const engine = holder.engine;
    expect((await engine.decide(request("read_file", { path: "a" }))).decision).toBe("allow");
    const grant = engine.grant({ decision: "allow", tool: "write_file" }, { sessionId: "s1" });
    expect((await engine.decide(request("write_file", { path: "a" }, "s1"))).decision).toBe(
      "allow",
    );

    const { droppedGrants } = holder.replace(
      await engineOf([{ decision: "deny", tool: "read_file" }]),
    );
    expect(droppedGrants).toEqual([]);
    // The same object the checkpoint holds now answers with the new rules.
    expect((await engine.decide(request("read_file", { path: "a" }))).decision).toBe("deny");
    expect((await engine.decide(request("write_file", { path: "a" }, "s1"))).decision).toBe(
      "allow",
    );
    expect(engine.rules().map((rule) => rule.layer)).toContain("session");
    expect(engine.revoke(grant)).toBe(true);
    expect((await engine.decide(request("write_file", { path: "a" }, "s1"))).decision).toBe("ask");
  });

  it("drops a grant the new policy refuses, and says which", async () => {
    const holder = createPolicyHolder(await engineOf([]));
    const id = holder.engine.grant({ id: "mine", decision: "allow", tool: "read_file" });
    const { droppedGrants } = holder.replace(
      await engineOf([{ id: "mine", decision: "deny", tool: "write_file" }]),
    );
    expect(droppedGrants).toEqual([id]);
    expect(holder.engine.revoke(id)).toBe(false);
  });
});
