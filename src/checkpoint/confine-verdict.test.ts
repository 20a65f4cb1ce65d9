import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { PolicyVerdict } from "../policy/policy.js";
import type { Tool, ToolConfinement } from "../tool/tool.js";
import { confineVerdict, withConfinement } from "./confine-verdict.js";

const confinements: fc.Arbitrary<ToolConfinement | undefined> = fc.oneof(
  fc.constant(undefined),
  fc.constant({ status: "sandboxed" as const }),
  fc.constant({ status: "off" as const }),
  fc.string().map((reason) => ({ status: "unconfined" as const, reason })),
  fc.string().map((reason) => ({ status: "refused" as const, reason })),
);
const verdicts: fc.Arbitrary<PolicyVerdict> = fc.record(
  {
    decision: fc.constantFrom("allow", "ask", "deny"),
    rule: fc.string(),
    reason: fc.string(),
  },
  { requiredKeys: ["decision"] },
);
const toolWith = (confinement: ToolConfinement | undefined) =>
  ({ name: "run_command", ...(confinement ? { confinement } : {}) }) as unknown as Tool;

describe("confineVerdict", () => {
  it("never allows an unconfined tool, never lets a refused one through, and is strict only", () => {
    const rank = { allow: 0, ask: 1, deny: 2 };
    fc.assert(
      fc.property(confinements, verdicts, (confinement, verdict) => {
        const out = confineVerdict(toolWith(confinement), verdict);
        expect(rank[out.decision]).toBeGreaterThanOrEqual(rank[verdict.decision]);
        if (confinement?.status === "unconfined") {
          expect(out.decision).not.toBe("allow");
          if (verdict.decision === "allow") expect(out.reason).toMatch(/^not sandboxed: /);
        }
        if (confinement?.status === "refused") expect(out.decision).toBe("deny");
        if (!confinement || confinement.status === "sandboxed" || confinement.status === "off") {
          expect(out).toBe(verdict);
        }
      }),
    );
  });

  it("applies to async policies too, and passes non-verdicts on for the decide step to refuse", async () => {
    const tool = toolWith({ status: "unconfined", reason: "no bwrap" });
    const decide = withConfinement(async () => ({ decision: "allow" as const }));
    const request = {
      tool,
      args: {},
      rawArguments: "{}",
      callId: "c",
      principal: "a",
      sessionId: undefined,
    };
    expect((await decide(request)).decision).toBe("ask");
    expect(confineVerdict(tool, null as unknown as PolicyVerdict)).toBeNull();
  });
});
