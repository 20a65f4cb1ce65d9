import { describe, expect, it } from "vitest";
import { compileWhen } from "./when-condition.js";

describe("whenReads", () => {
  it.each([
    ["args.amount > 150", ["amount"]],
    ['args.amount > 150 && args["currency"] == "USD"', ["amount", "currency"]],
    ["has(args.refund) && args.refund.total > 1.0", ["refund"]],
    ["args.items.all(i, i > 1)", ["items"]],
    ['principal == "agent" && tool.writes', []],
  ])("%s reads %j", (text, reads) => {
    expect(compileWhen(text).reads).toEqual(reads);
  });

  it.each([
    "size(args) > 2",
    "args[principal] == 1",
    '"amount" in args',
    "[1, 2].exists(args, args > 1)",
  ])("%s reads all arguments (what it reads cannot be told)", (text) => {
    expect(compileWhen(text).reads).toBe("all");
  });
});
