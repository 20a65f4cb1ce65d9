import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../tool/define-tool.js";
import { toolFromMeta } from "./builtin-tool-meta.js";
import { declaredBound, type GrantScope } from "./grant-scope.js";
import type { PolicyRequest } from "./policy.js";
import { createPolicyEngine } from "./policy-engine.js";

const refund = defineTool({
  name: "issue_refund",
  description: "Refund an order.",
  input: z.object({ order_id: z.string(), amount: z.number() }),
  writes: true,
  handler: () => "ok",
});

const request = (args: Record<string, unknown>): PolicyRequest => ({
  tool: refund,
  args,
  rawArguments: JSON.stringify(args),
  callId: "c1",
  principal: "agent",
  sessionId: "ses_1",
});

describe("the grant scope of an asked call", () => {
  it("has the same key for two refunds exactly when the amounts a condition reads are equal", async () => {
    const engine = await createPolicyEngine({
      layers: [
        {
          name: "project",
          rules: [
            { id: "ceiling", decision: "ask", tool: "issue_refund", when: "args.amount > 150" },
          ],
        },
      ],
    });
    const keyOf = async (args: Record<string, unknown>) => {
      const grant = (await engine.decide(request(args))).grant as GrantScope;
      return grant.status === "offered" ? grant.key : grant.reason;
    };
    const amount = fc.double({ min: 150.5, max: 1e9, noNaN: true });
    await fc.assert(
      fc.asyncProperty(amount, amount, fc.string(), fc.string(), async (a, b, first, second) => {
        const same =
          (await keyOf({ order_id: first, amount: a })) ===
          (await keyOf({ order_id: second, amount: b }));
        expect(same).toBe(a === b);
      }),
    );
  });

  it("tells an absent argument from a null one, and says so", async () => {
    const engine = await createPolicyEngine({
      layers: [
        {
          name: "project",
          rules: [
            {
              id: "no-note",
              decision: "ask",
              tool: "issue_refund",
              when: "!has(args.note) || args.note == null",
            },
          ],
        },
      ],
    });
    const absent = (await engine.decide(request({ amount: 1 }))).grant;
    const nulled = (await engine.decide(request({ amount: 1, note: null }))).grant;
    if (absent?.status !== "offered" || nulled?.status !== "offered") throw new Error("no grant");
    expect(absent.covers).toContain("note absent");
    expect(nulled.covers).toContain("note = null");
    expect(absent.key).not.toBe(nulled.key);
  });

  it("binds a URL to its origin, and a path or URL the matchers cannot read as it is", async () => {
    const fetchUrl = toolFromMeta("fetch_url", { writes: false, policyArgs: { url: "url" } });
    const engine = await createPolicyEngine({
      layers: [{ name: "project", defaults: { reads: "ask" } }],
    });
    const keyOf = async (url: unknown) => {
      const grant = (await engine.decide({ ...request({ url }), tool: fetchUrl })).grant;
      return grant?.status === "offered" ? grant.key : undefined;
    };
    const github = await keyOf("https://github.com/a");
    expect(await keyOf("https://GitHub.com:443/b?q=1")).toBe(github);
    for (const other of [
      "http://github.com/a",
      "https://github.com.evil.example/a",
      "https://github.com@evil.example/",
    ]) {
      expect(await keyOf(other), other).not.toBe(github);
    }
    const tool = { policyArgs: { path: "path", url: "url" } };
    expect(declaredBound(tool, { path: 7, url: ["x"] })).toEqual({
      path: [],
      "args.path": [7],
      "args.url": [["x"]],
    });
    expect(declaredBound(tool, {})).toEqual({ path: [], "args.path": [], "args.url": [] });
    // As many paths as a 1 MB argument holds: more than a spread's arguments can.
    const paths = Array.from({ length: 200_000 }, (_, i) => `f${i}`);
    expect(declaredBound(tool, { path: paths }).path).toHaveLength(200_000);
  });

  it("is absent for allow and deny, and names no key for a call outside a session", async () => {
    const engine = await createPolicyEngine({
      layers: [{ name: "project", rules: [{ decision: "allow", tool: "issue_refund" }] }],
    });
    expect((await engine.decide(request({ amount: 1 }))).grant).toBeUndefined();
    const asking = await createPolicyEngine({ layers: [] });
    const outside = await asking.decide({ ...request({ amount: 1 }), sessionId: undefined });
    expect(outside.grant).toEqual({
      status: "not_offered",
      reason: "the call belongs to no session",
    });
  });
});
