import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type ChainRow, ChainVerifier, GENESIS_HASH, linkHash } from "./audit-chain.js";
import { joinedLinkText } from "./joined-link.js";

/** A chain of `sizes.length` links, each holding that many events (one link a read call's). */
function chainOf(sizes: readonly number[], sessionId = "s"): ChainRow[] {
  const rows: ChainRow[] = [];
  let prevHash = GENESIS_HASH;
  for (const [call, size] of sizes.entries()) {
    const from = rows.length + 1;
    const events = Array.from({ length: size }, (_, i) =>
      JSON.stringify({ at: from + i, callId: `c${call}`, note: "n", tool: "t", type: "log" }),
    );
    const end = from + size - 1;
    const text = size === 1 ? (events[0] as string) : joinedLinkText(events);
    const hash = linkHash(end, sessionId, prevHash, text);
    for (const [i, event] of events.entries()) {
      const base = { sessionId, seq: from + i, callId: `c${call}`, tool: "t", type: "log" };
      rows.push({
        ...base,
        at: from + i,
        event,
        prevHash,
        hash,
        ...(size > 1 ? { packedFrom: from, linkEnd: end } : {}),
      });
    }
    prevHash = hash;
  }
  return rows;
}

function verify(rows: readonly ChainRow[], head = rows.at(-1)) {
  const heads = new Map([["s", { seq: head?.seq ?? 0, hash: head?.hash ?? "" }]]);
  const verifier = new ChainVerifier((id) => heads.get(id));
  for (const row of rows) if (verifier.row(row)) break;
  return verifier.finish(heads.keys());
}

const sizes = fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 6 });

describe("a link that holds several events", () => {
  it("verifies, one hash for all of its events", () => {
    fc.assert(
      fc.property(sizes, (list) => {
        const rows = chainOf(list);
        expect(verify(rows)).toEqual({ ok: true, checked: rows.length, sessions: 1 });
      }),
    );
  });

  it("fails on any edit of an event, a hash, where a link ends, or a row dropped or moved", () => {
    const edits: ((row: ChainRow) => ChainRow)[] = [
      (row) => ({ ...row, event: row.event.replace('"n"', '"m"') }),
      (row) => ({ ...row, event: row.event.replace('"log"', '"lag"') }),
      (row) => ({ ...row, hash: row.hash === "0".repeat(64) ? "1".repeat(64) : "0".repeat(64) }),
      (row) => ({ ...row, linkEnd: (row.linkEnd ?? row.seq) + 1 }),
      (row) => ({ ...row, linkEnd: row.linkEnd === undefined ? row.seq : undefined }),
      (row) => ({ ...row, prevHash: "1".repeat(64) }),
    ];
    fc.assert(
      fc.property(
        sizes,
        fc.nat(),
        fc.integer({ min: 0, max: edits.length + 1 }),
        (list, at, kind) => {
          const rows = chainOf(list);
          const index = at % rows.length;
          const target = rows[index] as ChainRow;
          let changed: ChainRow[];
          if (kind === edits.length) {
            changed = rows.filter((_, i) => i !== index);
          } else if (kind === edits.length + 1) {
            if (rows.length < 2) return;
            const other = (index + 1) % rows.length;
            changed = [...rows];
            changed[index] = rows[other] as ChainRow;
            changed[other] = target;
          } else {
            const edited = (edits[kind] as (row: ChainRow) => ChainRow)(target);
            // A single event's own link has no linkEnd to take away; one with linkEnd equal to
            // its seq is still a link of one, hashed as joined: that must fail too.
            changed = rows.map((row, i) => (i === index ? edited : row));
          }
          // The head stays the one recorded: an attacker without the store's help cannot move it.
          expect(verify(changed, rows.at(-1)).ok).toBe(false);
        },
      ),
    );
  });

  it("names the link's events when one of them was edited", () => {
    const rows = chainOf([1, 4, 1]);
    const edited = rows.map((row) =>
      row.seq === 3 ? { ...row, event: row.event.replace('"n"', '"m"') } : row,
    );
    expect(verify(edited)).toMatchObject({
      ok: false,
      seq: 2,
      problem: expect.stringMatching(/^events 2 to 5 were altered \(they are one link/),
    });
  });

  it("fails when the chain ends inside a link", () => {
    const rows = chainOf([4]);
    expect(verify(rows.slice(0, 3), rows.at(-1))).toMatchObject({
      ok: false,
      seq: 1,
      problem: expect.stringMatching(/its last event is missing/),
    });
  });
});
