import { describe, expect, it } from "vitest";
import { type CallRow, newCallRow } from "./call-state.js";
import { hasSettledOwner } from "./settled-owner.js";

const row: CallRow = { ...newCallRow("ses_1", "call_1", "lookup", 1), owner: "host/1/a" };

describe("hasSettledOwner", () => {
  it("is true once no process can claim, release or resume the call", () => {
    expect(hasSettledOwner({ ...row, state: "started", writes: true })).toBe(true);
    expect(hasSettledOwner({ ...row, state: "interrupted" })).toBe(true);
    expect(hasSettledOwner({ ...row, state: "finished" })).toBe(true);
  });

  it("is false while the call is open to a claim, a release or an approval's resumption", () => {
    expect(hasSettledOwner({ ...row, state: "requested", startedAt: 2 })).toBe(false);
    expect(hasSettledOwner({ ...row, state: "claimed", claimedAt: 2, startedAt: 2 })).toBe(false);
    const awaiting = { kind: "awaiting_approval", approvalId: "apr_1", at: 3 };
    expect(
      hasSettledOwner({ ...row, state: "finished", outcome: awaiting as CallRow["outcome"] }),
    ).toBe(false);
  });
});
