import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import type { ToolResult } from "../../checkpoint/tool-result.js";
import {
  applyCallEvent,
  applyCallResult,
  type CallRow,
  newCallRow,
  rowArgsHash,
} from "../call-state.js";
import type { StoreEvent } from "../store-event.js";
import { toCallRecord } from "../store-rows.js";
import { parseStoreUrl } from "../store-url.js";
import { openNodeSqlite } from "./node-sqlite-database.js";
import { SqliteCalls } from "./sqlite-calls.js";
import type { Database } from "./sqlite-driver.js";
import { SqliteEngine } from "./sqlite-engine.js";

const root = mkdtempSync(join(tmpdir(), "docket-sqlite-calls-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let files = 0;

/** A new file with docket's schema, opened as a bare connection. */
async function openSchemaFile(): Promise<{ db: Database; path: string }> {
  const path = join(root, `calls-${++files}.db`);
  const target = parseStoreUrl(`sqlite:${path}`);
  if (target.engine !== "sqlite") throw new Error("a SQLite URL");
  await SqliteEngine.open(target, { readOnly: false, mustExist: false }, "o", Date.now).close();
  return { db: openNodeSqlite(path), path };
}

/**
 * What a row says once stored: its record, its result's text, its arguments' hash. Not the echo
 * of its result's message and output: that is a copy of what the result's text holds, kept only
 * to store the outcome shorter, and read back only when the outcome was stored that way.
 */
function asStored(row: CallRow | undefined): unknown {
  if (row === undefined) return undefined;
  const { resultEcho: _echo, ...record } = toCallRecord(row) as CallRow;
  return { record, result: row.result, argsHash: rowArgsHash(row) };
}

// Texts as a model or a tool may give them: ASCII, any Unicode, NUL and lone surrogates.
const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: "grapheme", maxLength: 12 }),
  fc.string({ unit: "binary", maxLength: 12 }),
  fc.constantFrom("\u0000", "\ud800x", "é", ""),
);

/** A step of a call's life, folded the way the store folds its queued items. */
const step = fc.oneof(
  fc.record({
    kind: fc.constant("requested" as const),
    principal: text,
  }),
  fc.record({
    kind: fc.constant("decided" as const),
    decision: fc.constantFrom("allow", "ask", "deny"),
    rule: text,
    args: fc.dictionary(fc.string({ maxLength: 4 }), text, { maxKeys: 3 }),
  }),
  fc.record({ kind: fc.constant("started" as const), writes: fc.boolean() }),
  fc.record({ kind: fc.constant("finished" as const), message: text, output: text }),
  fc.record({
    kind: fc.constant("result" as const),
    status: fc.constantFrom("ok", "refused", "failed"),
    message: text,
    output: fc.oneof(text, fc.integer(), fc.constant(null), fc.record({ a: text })),
    dedupeKey: fc.option(text, { nil: undefined }),
  }),
);

const callSpec = fc.record({
  tool: text,
  argsHash: fc.option(
    fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: 64, maxLength: 64 }),
    { nil: undefined },
  ),
  steps: fc.array(step, { maxLength: 5 }),
});

type CallSpec = typeof callSpec extends fc.Arbitrary<infer T> ? T : never;

function rowOf(callId: string, spec: CallSpec): CallRow {
  let row: CallRow | undefined = {
    ...newCallRow("s1", callId, spec.tool, 1_000),
    ...(spec.argsHash !== undefined ? { argsHash: spec.argsHash } : {}),
  };
  let at = 1_000;
  const base = { sessionId: "s1", callId, tool: spec.tool };
  for (const s of spec.steps) {
    at += 1;
    switch (s.kind) {
      case "requested":
        row = applyCallEvent(
          row,
          "s1",
          { ...base, at, type: "requested", principal: s.principal } as StoreEvent,
          "o",
        );
        break;
      case "decided":
        row = applyCallEvent(
          row,
          "s1",
          {
            ...base,
            at,
            type: "decided",
            decision: s.decision,
            rule: s.rule,
            args: s.args,
          } as StoreEvent,
          "o",
        );
        break;
      case "started":
        row = applyCallEvent(
          row,
          "s1",
          { ...base, at, type: "started", writes: s.writes, timeoutMs: 1 } as StoreEvent,
          "o",
        );
        break;
      case "finished":
        row = applyCallEvent(
          row,
          "s1",
          {
            ...base,
            at,
            type: "finished",
            status: "ok",
            reason: undefined,
            message: s.message,
            durationMs: 2,
            outputBytes: s.output.length,
            output: s.output,
          } as StoreEvent,
          "o",
        );
        break;
      case "result": {
        const result = {
          callId,
          name: spec.tool,
          status: s.status,
          message: s.message,
          durationMs: 3,
          ...(s.status === "ok" ? { output: s.output } : { reason: "error" }),
        } as ToolResult;
        row = applyCallResult(row, "s1", callId, result, s.dedupeKey, at);
        break;
      }
    }
  }
  return row as CallRow;
}

describe("SqliteCalls: the rows a commit saved are kept as the table holds them", () => {
  it("a kept row reads as the stored row, for any texts, outcome and result", async () => {
    const { db } = await openSchemaFile();
    const writer = new SqliteCalls(db, "o", () => 1_000);
    const reader = new SqliteCalls(db, "o", () => 1_000);
    let run = 0;
    try {
      fc.assert(
        fc.property(fc.array(callSpec, { minLength: 1, maxLength: 5 }), (specs) => {
          run += 1;
          const rows = specs.map((spec, i) => rowOf(`c${run}_${i}`, spec));
          const ids = rows.map((row) => row.callId);
          writer.readAhead("s1", ids);
          db.transaction(() => writer.saveMany(rows, { absent: true })).immediate();
          // The next commit takes them from what was kept; the reader reads the table.
          const kept = db
            .transaction(() => writer.loadFor(rows))
            .immediate()
            .get("s1");
          const stored = ids.map((id) => reader.load("s1", id));
          ids.forEach((id, i) => {
            expect(asStored(kept?.get(id)?.row)).toEqual(asStored(stored[i]));
          });
          // Saved again as kept, each row stores what saving the row read back stores.
          const again = ids.flatMap((id) => kept?.get(id)?.row ?? []);
          db.transaction(() => writer.saveMany(again)).immediate();
          const resaved = ids.map((id) => asStored(reader.load("s1", id)));
          expect(resaved).toEqual(stored.map(asStored));
        }),
        { numRuns: 200 },
      );
    } finally {
      db.close();
    }
  });

  it("keeps no row the batch did not read ahead, however many calls come one at a time", async () => {
    const { db } = await openSchemaFile();
    const calls = new SqliteCalls(db, "o", () => 1_000);
    // Internal: what the store holds between commits (a result's whole JSON per row).
    const kept = () => (calls as unknown as { ahead?: { rows: Map<string, unknown> } }).ahead;
    try {
      calls.readAhead("s1", ["c1", "c2"]);
      for (let i = 0; i < 500; i += 1) {
        const row = rowOf(`single_${i}`, { tool: "note", argsHash: undefined, steps: [] });
        db.transaction(() => calls.saveMany([row], { absent: true })).immediate();
      }
      const row = rowOf("c1", { tool: "note", argsHash: undefined, steps: [] });
      db.transaction(() => calls.saveMany([row], { absent: true })).immediate();
      expect([...(kept()?.rows.keys() ?? [])].sort()).toEqual(["c1", "c2"]);
    } finally {
      db.close();
    }
  });

  it("reads the table again after the saving transaction was undone", async () => {
    const { db } = await openSchemaFile();
    const calls = new SqliteCalls(db, "o", () => 1_000);
    try {
      const row = rowOf("c1", { tool: "note", argsHash: undefined, steps: [] });
      calls.readAhead("s1", ["c1"]);
      expect(() =>
        db
          .transaction(() => {
            calls.saveMany([row], { absent: true });
            throw new Error("the commit fails after the row was saved");
          })
          .immediate(),
      ).toThrow("the commit fails");
      const entry = db
        .transaction(() => calls.loadFor([row]))
        .immediate()
        .get("s1")
        ?.get("c1");
      expect(entry?.row).toBeUndefined();
      expect(entry?.stored).toBe(false);
    } finally {
      db.close();
    }
  });

  it("reads the table again after another connection wrote to the file", async () => {
    const { db, path } = await openSchemaFile();
    const other = openNodeSqlite(path);
    const calls = new SqliteCalls(db, "o", () => 1_000);
    const others = new SqliteCalls(other, "p", () => 2_000);
    try {
      const row = rowOf("c1", { tool: "note", argsHash: undefined, steps: [] });
      calls.readAhead("s1", ["c1"]);
      db.transaction(() => calls.saveMany([row], { absent: true })).immediate();
      // Another process finishes the call in between.
      other
        .transaction(() =>
          others.save({ ...row, state: "finished", status: "ok", finishedAt: 2_000, owner: "p" }),
        )
        .immediate();
      const entry = db
        .transaction(() => calls.loadFor([row]))
        .immediate()
        .get("s1")
        ?.get("c1");
      expect(entry?.row?.state).toBe("finished");
      expect(entry?.row?.owner).toBe("p");
    } finally {
      other.close();
      db.close();
    }
  });
});
