import { describe, expect, it } from "vitest";
import type { ToolResult } from "../checkpoint/tool-result.js";
import { hashCanonical } from "../shared/canonical-json.js";
import { applyCallEvent, applyCallResult, type CallRow, rowArgsHash } from "./call-state.js";
import { foldCallWrite } from "./pending-write.js";
import type { StoreEvent } from "./store-event.js";
import { callRowValues, toCallRecord } from "./store-rows.js";

const base = { callId: "c1", tool: "refund", sessionId: "s" };
const requested: StoreEvent = {
  ...base,
  type: "requested",
  at: 1,
  principal: "agent",
  rawArguments: "{}",
  rawBytes: 2,
};
const started: StoreEvent = { ...base, type: "started", at: 2, writes: true, timeoutMs: 10 };
const finished: StoreEvent = {
  ...base,
  type: "finished",
  at: 3,
  status: "ok",
  reason: undefined,
  message: "done",
  durationMs: 1,
  outputBytes: 2,
  output: "42",
};
const interrupted: StoreEvent = {
  ...base,
  type: "interrupted",
  at: 5,
  reason: "interrupted",
  message: "gone",
  startedAt: 2,
  owner: "other",
};
const refused: StoreEvent = {
  ...base,
  type: "refused",
  at: 4,
  reason: "duplicate_call_id",
  message: "dup",
  durationMs: 0,
};

function fold(events: StoreEvent[], row?: CallRow): CallRow | undefined {
  return events.reduce<CallRow | undefined>(
    (current, event) => applyCallEvent(current, "s", event, "me"),
    row,
  );
}

describe("applyCallEvent", () => {
  it("follows a write from requested to started to finished", () => {
    expect(fold([requested])).toMatchObject({ state: "requested", principal: "agent", seenAt: 1 });
    expect(fold([requested, started])).toMatchObject({
      state: "started",
      writes: true,
      owner: "me",
    });
    expect(fold([requested, started, finished])).toMatchObject({
      state: "finished",
      status: "ok",
      outcome: { kind: "finished", output: "42", at: 3 },
    });
  });

  it("keeps the first final outcome and never interrupts a finished call", () => {
    const done = fold([requested, started, finished]);
    expect(fold([refused], done)).toBe(done);
    expect(fold([interrupted], done)).toBe(done);
    expect(fold([requested, started, interrupted])).toMatchObject({
      state: "interrupted",
      reason: "interrupted",
    });
  });

  it("closes a read cut short the same way from the chain alone as in the store (which saw its claim)", () => {
    const read = { ...started, writes: false } as StoreEvent;
    const fromChain = fold([requested, read, interrupted]);
    expect(fromChain).toMatchObject({ state: "interrupted", status: "failed" });
    // A read that never started is not closed by a stray interrupted event.
    expect(fold([requested, interrupted])).toMatchObject({ state: "requested", status: undefined });
  });

  it("does not let a second dispatch's refusal close a running call", () => {
    const running = fold([requested, started]);
    expect(fold([{ ...refused, reason: "denied" }], running)).toBe(running);
    expect(fold([requested, refused])).toMatchObject({ state: "requested" });
  });

  it("closes a started call with the refusal of its own intent (the store marks it), only that one", () => {
    const running = fold([requested, started]);
    const audit = { ...refused, reason: "audit_failed" } as StoreEvent;
    expect(fold([audit], running)).toBe(running);
    expect(
      fold([{ ...audit, intentFailed: true } as unknown as StoreEvent], running),
    ).toMatchObject({
      state: "finished",
      status: "refused",
      reason: "audit_failed",
    });
  });

  it("does not mark a read as started, and ignores log events", () => {
    const read = fold([
      requested,
      { ...base, type: "started", at: 2, writes: false, timeoutMs: 1 },
    ]);
    expect(read).toMatchObject({ state: "requested", writes: false, startedAt: 2 });
    expect(fold([{ ...base, type: "log", at: 2, message: "m", data: null }], read)).toBe(read);
  });
});

describe("applyCallResult", () => {
  it("keeps the full result and dedupe key beside the outcome from events", () => {
    const result: ToolResult = {
      callId: "c1",
      name: "refund",
      status: "ok",
      output: { id: 1 },
      message: "done",
      durationMs: 1,
    };
    const done = fold([requested, started, finished]);
    const kept = applyCallResult(done, "s", "c1", result, "k", 9);
    expect(kept).toMatchObject({
      dedupeKey: "k",
      result: JSON.stringify(result),
      outcome: { output: "42" },
    });
    expect(applyCallResult(undefined, "s", "c1", result, undefined, 9)).toMatchObject({
      state: "finished",
      status: "ok",
      finishedAt: 9,
      outcome: { kind: "finished", output: '{"id":1}' },
    });
  });
});

describe("the arguments hash of a calls row", () => {
  const args = { order_id: "SU-1", amount: 5 };
  const decided: StoreEvent = {
    ...base,
    type: "decided",
    at: 2,
    decision: "allow",
    rule: undefined,
    layer: undefined,
    reason: undefined,
    explanation: undefined,
    args,
  };
  const claim = (argsHash: string | undefined) => ({
    kind: "claim" as const,
    sessionId: "s",
    callId: "c1",
    tool: "refund",
    writes: false,
    dedupeKey: undefined,
    argsHash,
    at: 3,
  });

  it("is the decided arguments' hash when no claim brings one (a call refused before its claim)", () => {
    const row = fold([requested, decided]) as CallRow;
    expect(rowArgsHash(row)).toBe(hashCanonical(args));
    expect(callRowValues(row).at(-1)).toBe(hashCanonical(args));
    expect(toCallRecord(row)).not.toHaveProperty("decidedArgs");
  });

  it("is the claim's hash when the claim brings one, and the decided arguments are not hashed again", () => {
    const row = foldCallWrite(fold([requested, decided]), claim("f".repeat(64)), "me") as CallRow;
    expect(rowArgsHash(row)).toBe("f".repeat(64));
    // A throwing getter in the decided arguments would be reached by a second hash.
    const hostile = {
      ...decided,
      args: {
        get n() {
          throw new Error("hashed twice");
        },
      },
    };
    const claimed = foldCallWrite(fold([requested, hostile]), claim("e".repeat(64)), "me");
    expect(callRowValues(claimed as CallRow).at(-1)).toBe("e".repeat(64));
  });

  it("keeps the first decision's arguments when a call is decided twice in one write", () => {
    const again = { ...decided, args: { order_id: "SU-2", amount: 9 } };
    expect(rowArgsHash(fold([requested, decided, again]) as CallRow)).toBe(hashCanonical(args));
    const saved = { ...(fold([requested, decided]) as CallRow), argsHash: "a".repeat(64) };
    expect(rowArgsHash(fold([again], saved) as CallRow)).toBe("a".repeat(64));
  });
});
