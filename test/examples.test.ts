import { describe, expect, it } from "vitest";
import { main } from "../examples/quickstart.js";

describe("examples/quickstart", () => {
  it("shows an allowed read, an approved write, a denied write and unreadable arguments", async () => {
    const results = await main();
    expect(results.map((r) => [r.callId, r.status, r.reason])).toEqual([
      ["call_1", "ok", undefined],
      ["call_2", "ok", undefined],
      ["call_3", "refused", "denied"],
      ["call_4", "refused", "unreadable_arguments"],
    ]);
    expect(results[2]?.message).toContain("refunds over 150 USD need a lead");
  });
});
