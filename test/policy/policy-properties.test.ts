import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { strictness } from "../../src/policy/decision-order.js";
import type { Decision } from "../../src/policy/policy.js";
import { createPolicyEngine } from "../../src/policy/policy-engine.js";
import type { PolicyLayer, PolicyRuleSpec } from "../../src/policy/policy-rule.js";
import { call } from "./support/policy-request.js";

const TOOLS = ["a", "b", "c"] as const;
const GLOBS: Record<string, (name: string) => boolean> = {
  a: (n) => n === "a",
  b: (n) => n === "b",
  "*": () => true,
  "{a,b}": (n) => n === "a" || n === "b",
};
// Conditions and what they give for args.n (undefined: evaluation fails).
const CONDITIONS: Record<string, (n: number | undefined) => boolean | undefined> = {
  "args.n > 5": (n) => (n === undefined ? undefined : n > 5),
  "args.n <= 5": (n) => (n === undefined ? undefined : n <= 5),
  "args.missing > 1": () => undefined,
};

const decision = fc.constantFrom<Decision>("allow", "ask", "deny");
const rule: fc.Arbitrary<PolicyRuleSpec> = fc.record(
  {
    decision,
    tool: fc.constantFrom(...Object.keys(GLOBS)),
    when: fc.constantFrom(...Object.keys(CONDITIONS)),
  },
  { requiredKeys: ["decision", "tool"] },
);
const layerNames = ["managed", "user", "project", "session"];
const layers = fc
  .array(fc.array(rule, { maxLength: 6 }), { minLength: 1, maxLength: 4 })
  .map((list) => list.map((rules, i): PolicyLayer => ({ name: layerNames[i] ?? "extra", rules })));
const request = fc.record({
  tool: fc.constantFrom(...TOOLS),
  n: fc.option(fc.integer({ min: 0, max: 10 }), { nil: undefined }),
  writes: fc.boolean(),
});

type Request = { tool: string; n: number | undefined; writes: boolean };

async function decide(policy: PolicyLayer[], req: Request): Promise<Decision> {
  const engine = await createPolicyEngine({ layers: policy });
  const args = req.n === undefined ? {} : { n: req.n };
  const verdict = await engine.decide(call(req.tool, args, { writes: req.writes }));
  return verdict.decision;
}

// An independent model of the semantics: every matching rule votes, strictest wins.
function oracle(policy: PolicyLayer[], req: Request): Decision {
  let best: Decision | undefined;
  for (const layer of policy) {
    for (const r of layer.rules ?? []) {
      if (!(GLOBS[r.tool as string] as (n: string) => boolean)(req.tool)) continue;
      const holds =
        r.when === undefined
          ? true
          : (CONDITIONS[r.when] as (n: number | undefined) => boolean | undefined)(req.n);
      const counted = holds === undefined ? r.decision !== "allow" : holds;
      if (counted && (best === undefined || strictness(r.decision) > strictness(best)))
        best = r.decision;
    }
  }
  return best ?? (req.writes ? "ask" : "allow");
}

describe("policy properties", () => {
  it("the decision is the strictest vote of the matching rules, else the default", async () => {
    await fc.assert(
      fc.asyncProperty(layers, request, async (policy, req) => {
        expect(await decide(policy, req)).toBe(oracle(policy, req));
      }),
      { numRuns: 300 },
    );
  });

  it("adding a deny or ask rule never makes a decision less strict; a matching deny always denies", async () => {
    await fc.assert(
      fc.asyncProperty(layers, request, rule, fc.nat(3), async (policy, req, extra, at) => {
        fc.pre(extra.decision !== "allow");
        const before = await decide(policy, req);
        const target = policy[at % policy.length] as PolicyLayer;
        const withExtra = policy.map((layer) =>
          layer === target ? { ...layer, rules: [...(layer.rules ?? []), extra] } : layer,
        );
        const after = await decide(withExtra, req);
        expect(strictness(after)).toBeGreaterThanOrEqual(strictness(before));
        const matching: PolicyRuleSpec = { decision: "deny", tool: "*" };
        const denied = policy.map((layer) =>
          layer === target ? { ...layer, rules: [...(layer.rules ?? []), matching] } : layer,
        );
        expect(await decide(denied, req)).toBe("deny");
      }),
      { numRuns: 200 },
    );
  });

  it("strictest wins regardless of the order of rules and layers", async () => {
    await fc.assert(
      fc.asyncProperty(layers, request, fc.infiniteStream(fc.nat()), async (policy, req, seeds) => {
        const shuffle = <T>(items: readonly T[]): T[] => {
          const copy = [...items];
          for (let i = copy.length - 1; i > 0; i--) {
            const j = (seeds.next().value as number) % (i + 1);
            [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
          }
          return copy;
        };
        const reordered = shuffle(policy).map((layer) => ({
          ...layer,
          rules: shuffle(layer.rules ?? []),
        }));
        expect(await decide(reordered, req)).toBe(await decide(policy, req));
      }),
      { numRuns: 200 },
    );
  });
});

describe("shell policy properties", () => {
  const COMMANDS = ["ls -la", "git status", "rm -rf build", "echo hi", "cat notes.txt"];
  const program = (command: string) =>
    command.startsWith("git status") ? "git status" : (command.split(" ")[0] as string);
  const ALLOWABLE = ["ls", "git status", "echo", "cat"];
  const DENIABLE = ["rm", "cat"];

  it("deny if any sub-command is denied, allow only if every one is allowed, else the write default", async () => {
    const script = fc.array(fc.constantFrom(...COMMANDS), { minLength: 1, maxLength: 5 });
    const joiners = fc.array(fc.constantFrom("; ", " && ", " || ", " | "), {
      minLength: 4,
      maxLength: 4,
    });
    await fc.assert(
      fc.asyncProperty(
        script,
        joiners,
        fc.subarray(ALLOWABLE),
        fc.subarray(DENIABLE),
        async (commands, joins, allowed, denied) => {
          const text = commands.map((c, i) => (i === 0 ? c : `${joins[i - 1]}${c}`)).join("");
          const rules: PolicyRuleSpec[] = [];
          if (allowed.length > 0)
            rules.push({
              decision: "allow",
              tool: "run_command",
              command: allowed.map((p) => `${p} *`),
            });
          if (denied.length > 0)
            rules.push({
              decision: "deny",
              tool: "run_command",
              command: denied.map((p) => `${p} *`),
            });
          const engine = await createPolicyEngine({ layers: [{ name: "project", rules }] });
          const verdict = await engine.decide(call("run_command", { command: text }));
          const programs = commands.map(program);
          const expected = programs.some((p) => denied.includes(p))
            ? "deny"
            : programs.every((p) => allowed.includes(p))
              ? "allow"
              : "ask";
          expect(verdict.decision, text).toBe(expected);
        },
      ),
      { numRuns: 150 },
    );
  });
});
