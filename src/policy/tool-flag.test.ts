import { describe, expect, it } from "vitest";
import { parseToolFlag } from "./tool-flag.js";

describe("parseToolFlag", () => {
  it("reads the name, the writes flag and the policy arguments", () => {
    expect(parseToolFlag("get_order")).toEqual({
      name: "get_order",
      meta: { writes: false, policyArgs: {} },
    });
    expect(parseToolFlag("issue_refund:writes")).toEqual({
      name: "issue_refund",
      meta: { writes: true, policyArgs: {} },
    });
    expect(parseToolFlag("mcp__fs__write:writes:path=file")).toEqual({
      name: "mcp__fs__write",
      meta: { writes: true, policyArgs: { path: "file" } },
    });
  });

  it("rejects what it does not understand", () => {
    expect(() => parseToolFlag("bad name")).toThrow(/expected NAME/);
    expect(() => parseToolFlag("x:write")).toThrow(/unknown part "write"/);
    expect(() => parseToolFlag("x:path=")).toThrow(/unknown part/);
  });
});
