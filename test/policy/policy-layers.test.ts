import { describe, expect, it } from "vitest";
import { isDocketError } from "../../src/errors/docket-error.js";
import { createPolicyEngine } from "../../src/policy/policy-engine.js";
import type { PolicyLayer, PolicyRuleSpec } from "../../src/policy/policy-rule.js";
import { call } from "./support/policy-request.js";

const project = (...rules: PolicyRuleSpec[]): PolicyLayer => ({ name: "project", rules });
const engineOf = (...layers: PolicyLayer[]) =>
  createPolicyEngine({ layers, workspace: process.cwd() });

describe("layers, strictest wins", () => {
  it("a deny in any layer beats an allow in a stronger one, and ask beats allow", async () => {
    const engine = await engineOf(
      { name: "managed", rules: [{ decision: "allow", tool: "write_file" }] },
      { name: "user", rules: [{ decision: "ask", tool: "write_file" }] },
      project({ decision: "deny", tool: "write_file", reason: "read-only project" }),
    );
    const verdict = await engine.decide(call("write_file", { path: "a" }));
    expect(verdict).toMatchObject({ decision: "deny", rule: "project:0", layer: "project" });
    expect(verdict.explanation).toContain("other votes: allow managed:0, ask user:0");
  });

  it("among equal votes the strongest layer decides", async () => {
    const engine = await engineOf(
      project({ decision: "deny", tool: "x", reason: "project says no" }),
      {
        name: "managed",
        rules: [
          { id: "org-no-x", decision: "deny", tool: "x", reason: "the organisation says no" },
        ],
      },
    );
    expect(engine.decide(call("x"))).toMatchObject({
      rule: "org-no-x",
      layer: "managed",
      reason: "the organisation says no",
    });
  });

  it("session grants vote like any layer: they cannot override a deny", async () => {
    const engine = await engineOf({
      name: "managed",
      rules: [{ decision: "deny", tool: "run_command", when: "args.command == 'shutdown'" }],
    });
    const id = engine.grant({ decision: "allow", tool: "run_command" }, { sessionId: "s1" });
    expect(id).toBe("session:0");
    expect(
      engine.decide(call("run_command", { command: "make" }, { sessionId: "s1" })),
    ).toMatchObject({ decision: "allow", rule: "session:0", layer: "session" });
    expect(
      engine.decide(call("run_command", { command: "make" }, { sessionId: "s2" })),
    ).toMatchObject({ decision: "ask" });
    expect(
      engine.decide(call("run_command", { command: "shutdown" }, { sessionId: "s1" })),
    ).toMatchObject({ decision: "deny" });
    expect(engine.revoke(id)).toBe(true);
    expect(engine.revoke(id)).toBe(false);
    expect(
      engine.decide(call("run_command", { command: "make" }, { sessionId: "s1" })),
    ).toMatchObject({ decision: "ask" });
  });

  it("a bad grant throws and adds nothing", async () => {
    const engine = await engineOf();
    expect(() => engine.grant({ decision: "allow", tool: "x", when: "args. >" })).toThrow(
      /grant: when: CEL/,
    );
    expect(engine.rules()).toEqual([]);
  });
});

describe("defaults", () => {
  it("reads allow and writes ask when nothing is configured", async () => {
    const engine = await engineOf();
    expect(engine.decide(call("read_file", { path: "a" }))).toMatchObject({
      decision: "allow",
      rule: "default:reads",
      layer: "default",
    });
    expect(engine.decide(call("write_file", { path: "a" }))).toMatchObject({
      decision: "ask",
      rule: "default:writes",
      layer: "default",
    });
  });

  it("take the strictest across layers that set them", async () => {
    const engine = await engineOf(
      { name: "managed", defaults: { reads: "ask" } },
      { name: "project", defaults: { reads: "allow", writes: "deny" } },
    );
    expect(engine.defaults).toMatchObject({
      reads: "ask",
      readsFrom: "managed",
      writes: "deny",
      writesFrom: "project",
    });
    const verdict = await engine.decide(call("read_file", { path: "a" }));
    expect(verdict).toMatchObject({ decision: "ask", rule: "default:reads" });
    expect(verdict.explanation).toContain("set by layer managed");
  });

  it("never allow a write by default", async () => {
    await expect(
      engineOf({ name: "project", defaults: { writes: "allow" as "ask" } }),
    ).rejects.toThrow(/project: defaults.writes: a write is never allowed by default/);
  });
});

describe("load errors for layers built in code", () => {
  const fails = async (layer: PolicyLayer, message: RegExp) => {
    const error = await engineOf(layer).catch((e: unknown) => e);
    expect(isDocketError(error, "policy_invalid")).toBe(true);
    expect((error as Error).message).toMatch(message);
  };

  it("name the layer, the path and the problem", async () => {
    await fails(
      project({ decision: "maybe" as "ask", tool: "x" }),
      /^project: rules\[0\]\.decision: "maybe" is not a decision/,
    );
    await fails(project({ decision: "deny" } as PolicyRuleSpec), /rules\[0\]\.tool: missing/);
    await fails(
      project({ decision: "deny", tool: ["ok", "a["] }),
      /rules\[0\]\.tool\[1\]: bad glob "a\["/,
    );
    await fails(
      project({ decision: "deny", tool: "x", when: "args.amount >" }),
      /rules\[0\]\.when: CEL: Unexpected token/,
    );
    await fails(
      project({ decision: "deny", tool: "x", colour: "red" } as PolicyRuleSpec),
      /rules\[0\]\.colour: unknown key/,
    );
    await fails(
      project({ decision: "deny", tool: "x", command: "ls; rm" }),
      /rules\[0\]\.command: invalid command pattern/,
    );
    await fails(
      project({ decision: "deny", tool: "x", host: "https://x.com" }),
      /rules\[0\]\.host: bad host pattern/,
    );
    await fails(
      project({ decision: "deny", tool: "x", approvers: ["a"] }),
      /only ask rules have approvers/,
    );
    await fails(
      project({ id: "a", decision: "deny", tool: "x" }, { id: "a", decision: "deny", tool: "y" }),
      /rules\[1\]\.id: duplicate rule id "a"/,
    );
  });
});
