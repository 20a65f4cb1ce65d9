import { describe, expect, it } from "vitest";
import { type ConditionContext, compileWhen } from "./when-condition.js";

const context = (
  args: Record<string, unknown>,
  more: Partial<ConditionContext> = {},
): ConditionContext => ({
  args,
  principal: "agent",
  session: { id: "s1" },
  tool: { name: "issue_refund", writes: true },
  run: { tainted: false, tainted_by: [] },
  ...more,
});

describe("when conditions (CEL)", () => {
  it("compare JSON numbers (doubles) with int literals", () => {
    const when = compileWhen("args.amount > 150");
    expect(when.evaluate(context({ amount: 200 }))).toEqual({ ok: true, value: true });
    expect(when.evaluate(context({ amount: 150 }))).toEqual({ ok: true, value: false });
    expect(when.evaluate(context({ amount: 150.5 }))).toEqual({ ok: true, value: true });
    expect(compileWhen("args.amount == 150").evaluate(context({ amount: 150 }))).toEqual({
      ok: true,
      value: true,
    });
  });

  it("read principal, session and tool", () => {
    const when = compileWhen(
      'principal == "agent" && session.id == "s1" && tool.writes && tool.name.startsWith("issue_")',
    );
    expect(when.evaluate(context({}))).toEqual({ ok: true, value: true });
    expect(when.evaluate(context({}, { principal: "other" }))).toEqual({ ok: true, value: false });
  });

  it("read the caller's scopes and groups, which are empty when its credentials said nothing", () => {
    const when = compileWhen('"admins" in caller.groups && "tools:write" in caller.scopes');
    const caller = { id: "ada", client: "console", scopes: ["tools:write"], groups: ["admins"] };
    expect(when.evaluate(context({}, { caller }))).toEqual({ ok: true, value: true });
    expect(when.evaluate(context({}, { caller: { ...caller, groups: [] } }))).toEqual({
      ok: true,
      value: false,
    });
    expect(when.evaluate(context({}))).toEqual({ ok: true, value: false });
    expect(
      compileWhen('caller.id == principal && caller.client == ""').evaluate(context({})),
    ).toEqual({ ok: true, value: true });
  });

  it("report a missing field, a type mismatch or a non-boolean as a failure, not false", () => {
    expect(compileWhen("args.amount > 150").evaluate(context({}))).toMatchObject({
      ok: false,
      error: expect.stringContaining("amount"),
    });
    expect(compileWhen("args.amount > 150").evaluate(context({ amount: "lots" }))).toMatchObject({
      ok: false,
    });
    expect(compileWhen("args.flag").evaluate(context({ flag: "yes" }))).toMatchObject({
      ok: false,
      error: expect.stringContaining("not a boolean"),
    });
    expect(compileWhen("args.amount + 1 > 150").evaluate(context({ amount: 10 }))).toMatchObject({
      ok: false,
    });
    expect(compileWhen("args.amount + 1.0 > 150.0").evaluate(context({ amount: 200 }))).toEqual({
      ok: true,
      value: true,
    });
  });

  it("reject at compile time what can never work", () => {
    expect(() => compileWhen("args.amount >")).toThrow(/Unexpected token/);
    expect(() => compileWhen("arg.amount > 1")).toThrow(/Unknown variable: arg/);
    expect(() => compileWhen("1 + 2")).toThrow(/gives int, not bool/);
    expect(() => compileWhen("  ")).toThrow(/empty/);
  });

  it("read the run's taint: run.tainted and run.tainted_by", () => {
    const when = compileWhen('run.tainted && "fetch_url" in run.tainted_by');
    expect(when.evaluate(context({}))).toEqual({ ok: true, value: false });
    const tainted = { tainted: true, tainted_by: ["fetch_url"] };
    expect(when.evaluate(context({}, { run: tainted }))).toEqual({ ok: true, value: true });
    expect(compileWhen("run.tainted").reads).toEqual([]);
  });
});
