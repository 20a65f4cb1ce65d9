import { describe, expect, it } from "vitest";
import { openNodeSqlite } from "../store/sqlite/node-sqlite-database.js";
import { type SettledCall, SettledCalls } from "./settled-calls.js";

function fold(status: SettledCall["status"], firstSeq: number): SettledCall {
  return {
    tool: "lookup",
    decision: "allow",
    rule: "reads",
    status,
    reason: undefined,
    state: "finished",
    firstSeq,
  };
}

describe("SettledCalls", () => {
  it("keeps the first fold of an id, in memory and once spilled to disk, and forgets what it gives", () => {
    let opened = 0;
    const settled = new SettledCalls(() => {
      opened += 1;
      return openNodeSqlite("");
    });
    try {
      for (let i = 0; i < 20_000; i += 1) settled.add(`c${i}`, fold("ok", i * 4 + 1));
      expect(opened).toBe(0);
      for (let i = 20_000; i < 25_000; i += 1) settled.add(`c${i}`, fold("ok", i * 4 + 1));
      expect(opened).toBe(1);
      // A repeated id refused later: the first settled fold stands, wherever it is kept.
      settled.add("c0", fold("refused", 999_999));
      settled.add("c24000", fold("refused", 999_999));
      expect(settled.take("c0")).toMatchObject({ status: "ok", firstSeq: 1 });
      expect(settled.take("c24000")).toMatchObject({ status: "ok", firstSeq: 96_001 });
      expect(settled.take("c24000")).toBeUndefined();
      expect(settled.take("missing")).toBeUndefined();
      for (let i = 1; i < 25_000; i += 1) {
        if (i !== 24_000 && i !== 7 && i !== 22_222) settled.take(`c${i}`);
      }
      expect([...settled.left(20)].map(([id]) => id).sort()).toEqual(["c22222", "c7"]);
      expect([...settled.left(1)]).toHaveLength(1);
    } finally {
      settled.close();
    }
  });

  it("gives back the fold as it was added, undefined fields included", () => {
    const settled = new SettledCalls(() => openNodeSqlite(""));
    try {
      for (let i = 0; i < 20_002; i += 1) settled.add(`c${i}`, fold(undefined, i));
      const spilled = settled.take("c20001");
      expect(spilled).toMatchObject({ tool: "lookup", decision: "allow", state: "finished" });
      expect(spilled?.status ?? null).toBeNull();
      expect(spilled?.reason ?? null).toBeNull();
    } finally {
      settled.close();
    }
  });

  it("keeps everything in memory when it has no file to spill to", () => {
    const settled = new SettledCalls();
    for (let i = 0; i < 20_005; i += 1) settled.add(`c${i}`, fold("ok", i));
    expect(settled.take("c20004")).toMatchObject({ firstSeq: 20_004 });
    expect([...settled.left(100)]).toHaveLength(100);
    settled.close();
  });
});
