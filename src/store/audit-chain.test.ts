import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson, hashCanonical } from "../shared/canonical-json.js";
import { legacyCanonicalJson } from "../shared/legacy-canonical-json.js";
import { ChainVerifier, GENESIS_HASH, linkHash } from "./audit-chain.js";

describe("linkHash", () => {
  it("is SHA-256 over the canonical JSON of { seq, sessionId, prevHash, event }, in any order of sessions", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 40 }),
        fc.string({ unit: "binary" }),
        // A hash docket wrote, or whatever an edited database holds.
        fc.oneof(
          fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: 64, maxLength: 64 }),
          fc.string({ unit: "binary" }),
          fc.constant(`${"a".repeat(63)}"`),
        ),
        fc.jsonValue(),
        (seq, sessionId, prevHash, event) => {
          const first = linkHash(seq, sessionId, prevHash, canonicalJson(event));
          expect(first).toBe(hashCanonical({ seq, sessionId, prevHash, event }));
          // The next link, whose previous hash is the one just computed.
          expect(linkHash(seq + 1, sessionId, first, canonicalJson(event))).toBe(
            hashCanonical({ seq: seq + 1, sessionId, prevHash: first, event }),
          );
        },
      ),
    );
  });
});

describe("ChainVerifier", () => {
  const chain = (sessionId: string, count: number) => {
    let prevHash = GENESIS_HASH;
    return Array.from({ length: count }, (_, i) => {
      const event = JSON.stringify({ at: i, callId: "c", tool: "t", type: "log" });
      const hash = linkHash(i + 1, sessionId, prevHash, event);
      const row = {
        sessionId,
        seq: i + 1,
        callId: "c",
        tool: "t",
        type: "log",
        at: i,
        event,
        prevHash,
        hash,
      };
      prevHash = hash;
      return row;
    });
  };

  it("accepts whole chains and counts them", () => {
    const rows = [...chain("a", 3), ...chain("b", 2)];
    const heads = new Map([
      ["a", { seq: 3, hash: rows[2]?.hash ?? "" }],
      ["b", { seq: 2, hash: rows[4]?.hash ?? "" }],
    ]);
    const verifier = new ChainVerifier((id) => heads.get(id));
    for (const row of rows) expect(verifier.row(row)).toBe(false);
    expect(verifier.finish(heads.keys())).toEqual({ ok: true, checked: 5, sessions: 2 });
  });

  it("reports a chain whose every event is gone, and one without a head", () => {
    const rows = chain("a", 2);
    const gone = new ChainVerifier(() => ({ seq: 2, hash: "x" }));
    expect(gone.finish(["a"])).toMatchObject({
      ok: false,
      sessionId: "a",
      seq: 1,
      problem: "all 2 events of this chain are missing",
    });
    const headless = new ChainVerifier(() => undefined);
    for (const row of rows) headless.row(row);
    expect(headless.finish([])).toMatchObject({
      ok: false,
      sessionId: "a",
      seq: 2,
      problem: expect.stringMatching(/no head/),
    });
  });

  it("verifies events hashed in either canonical form, as stored; an edit fails under both", () => {
    // A store begun before RFC 8785 and continued after: each link hashes the text it stores.
    const forms = [legacyCanonicalJson, canonicalJson, legacyCanonicalJson, canonicalJson];
    let prevHash = GENESIS_HASH;
    const rows = forms.map((form, i) => {
      const event = form({ at: i, callId: "c", tool: "t", type: "log", data: { "10": 1, "9": i } });
      const hash = linkHash(i + 1, "s", prevHash, event);
      const row = { sessionId: "s", seq: i + 1, callId: "c", tool: "t", type: "log", at: i };
      const link = { ...row, event, prevHash, hash };
      prevHash = hash;
      return link;
    });
    expect(rows[0]?.event).toContain('{"9":0,"10":1}');
    expect(rows[1]?.event).toContain('{"10":1,"9":1}');
    const verify = (list: typeof rows) => {
      const heads = new Map([["s", { seq: list.length, hash: list.at(-1)?.hash ?? "" }]]);
      const verifier = new ChainVerifier((id) => heads.get(id));
      for (const row of list) if (verifier.row(row)) break;
      return verifier.finish(heads.keys());
    };
    expect(verify(rows)).toEqual({ ok: true, checked: 4, sessions: 1 });
    for (const seq of [1, 2]) {
      const edited = rows.map((row) =>
        row.seq === seq ? { ...row, event: row.event.replace('"10":1', '"10":2') } : row,
      );
      expect(verify(edited)).toMatchObject({
        ok: false,
        seq,
        problem: expect.stringMatching(/altered/),
      });
    }
  });
});
