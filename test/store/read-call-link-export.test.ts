import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { exportTrail, readExport } from "../../src/audit/export-trail.js";
import { verifyTrail } from "../../src/audit/verify-trail.js";
import { callEvents, emitEachAlone } from "./support/call-events.js";
import { freshSqliteStores, readCallEvents } from "./support/fresh-sqlite-stores.js";

// A turn's read calls are one link of the chain on SQLite (ADRs 0077, 0086); an export names the
// link on each of its event lines, each line keeps its own call, and anyone can check it from
// the export alone.
const fresh = freshSqliteStores("docket-link-export-");
const read = readCallEvents;

describe("a link of read calls in an export", () => {
  async function exported(): Promise<string> {
    const store = await fresh();
    await store.emitMany([...read("r1"), ...read("r2")]);
    // A commit an event: a link an event beside the link of read calls.
    await emitEachAlone(store, callEvents({ sessionId: "ses_1", callId: "w1" }));
    let text = "";
    await exportTrail(store, { sessionId: "ses_1" }, (line) => {
      text += line;
    });
    await store.close();
    return text;
  }
  const chainProblems = async (text: string) =>
    (await verifyTrail(readExport(text, "x.jsonl").source)).problems.filter(
      (problem) => problem.kind === "chain",
    );

  it("is one line per event, each naming the link it belongs to, and verifies on its own", async () => {
    const text = await exported();
    const rows = text
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { kind: string; row?: Record<string, unknown> })
      .filter((line) => line.kind === "event")
      .map((line) => line.row);
    expect(rows.map((row) => [row?.seq, row?.callId, row?.type, row?.linkEnd])).toEqual([
      [1, "r1", "requested", 8],
      [2, "r1", "decided", 8],
      [3, "r1", "started", 8],
      [4, "r1", "finished", 8],
      [5, "r2", "requested", 8],
      [6, "r2", "decided", 8],
      [7, "r2", "started", 8],
      [8, "r2", "finished", 8],
      [9, "w1", "requested", undefined],
      [10, "w1", "decided", undefined],
      [11, "w1", "started", undefined],
      [12, "w1", "finished", undefined],
    ]);
    expect(await chainProblems(text)).toEqual([]);
  });

  it("recomputes, link by link, with nothing but SHA-256 as docs/audit.md describes", async () => {
    type Row = {
      sessionId: string;
      seq: number;
      event: string;
      prevHash: string;
      hash: string;
      packedFrom?: number;
      linkEnd?: number;
    };
    const rows = (await exported())
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { kind: string; row: Row })
      .filter((line) => line.kind === "event")
      .map((line) => line.row);
    const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
    let prev = "0".repeat(64);
    let checked = 0;
    for (let i = 0; i < rows.length; ) {
      const row = rows[i] as Row;
      const group =
        row.linkEnd === undefined ? [row] : rows.filter((r) => r.linkEnd === row.linkEnd);
      const last = group.at(-1) as Row;
      const text = group.length === 1 ? row.event : `[${group.map((r) => r.event).join(",\n")}]`;
      const body = `{"event":${text},"prevHash":${JSON.stringify(prev)},"seq":${last.seq},"sessionId":${JSON.stringify(row.sessionId)}}`;
      for (const member of group) {
        expect([member.prevHash, member.hash]).toEqual([prev, sha256(body)]);
      }
      if (row.linkEnd !== undefined) expect(row.packedFrom).toBe(row.seq);
      prev = last.hash;
      checked += 1;
      i += group.length;
    }
    expect(checked).toBe(5);
  });

  it("is refused with one of its events edited, dropped, or cut loose from the link", async () => {
    const text = await exported();
    const lines = text.split("\n");
    const decided = lines.findIndex(
      (line) => line.includes('\\"decided\\"') && line.includes('"seq":2'),
    );
    expect(decided).toBeGreaterThan(0);
    const edits = [
      lines.map((line, i) => (i === decided ? line.replace("lookup", "lookuq") : line)),
      lines.filter((_, i) => i !== decided),
      lines.map((line) => line.replace(',"linkEnd":8', "")),
      // One call's event given to the other: its text is in the link's hash.
      lines.map((line, i) => (i === decided ? line.replace('\\"r1\\"', '\\"r2\\"') : line)),
    ];
    for (const edited of edits) {
      const problems = await chainProblems(edited.join("\n"));
      expect(problems[0], edited.join("\n")).toMatchObject({ sessionId: "ses_1" });
    }
  });
});
