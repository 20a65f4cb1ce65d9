import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";

const counts = vi.hoisted(() => ({ eventJson: 0, sha256: 0, hashCanonical: 0 }));
const reset = () => Object.assign(counts, { eventJson: 0, sha256: 0, hashCanonical: 0 });
vi.mock("../../src/store/event-json.js", async (original) => {
  const real = await original<typeof import("../../src/store/event-json.js")>();
  return {
    ...real,
    eventJson: (event: Parameters<typeof real.eventJson>[0]) => {
      counts.eventJson += 1;
      return real.eventJson(event);
    },
  };
});
vi.mock("../../src/shared/canonical-json.js", async (original) => {
  const real = await original<typeof import("../../src/shared/canonical-json.js")>();
  return {
    ...real,
    sha256Hex: (text: string) => {
      counts.sha256 += 1;
      return real.sha256Hex(text);
    },
    hashCanonical: (value: unknown) => {
      counts.hashCanonical += 1;
      return real.hashCanonical(value);
    },
  };
});

const { createCheckpoint } = await import("../../src/checkpoint/create-checkpoint.js");
const { openStore } = await import("../../src/store/open-store.js");
const { defineTool } = await import("../../src/tool/define-tool.js");

const dir = mkdtempSync(join(tmpdir(), "docket-hash-once-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Issue 38's lean write path: each event's JSON is built once (the text hashed is the text
// stored), each chain link is hashed once, and a call's arguments are hashed once (its calls
// row and its events share the digest). Counted by wrapping the functions that do each, around
// real dispatches into a real SQLite file.
describe("what a dispatched call computes, counted", () => {
  it.each([
    ["read", false],
    ["write", true],
  ] as const)(
    "a batch of %s calls: one event JSON an event, one hash a link, one arguments hash a call",
    async (name, writes) => {
      const store = await openStore(`sqlite:${join(dir, `${name}.db`)}`);
      try {
        const session = await store.createSession({ principal: "agent", configHash: "x" });
        const tool = defineTool({
          name,
          description: "A tool of the test.",
          input: { type: "object" },
          writes,
          handler: () => `${name} done`,
        });
        const checkpoint = createCheckpoint({
          tools: [tool],
          store,
          policy: () => ({ decision: "allow" }),
        });
        // A first call warms what is made once per process or session, not per call.
        await checkpoint.dispatchBatch([{ id: "warm", name, arguments: "{}" }], {
          sessionId: session.id,
        });
        await store.flush();
        const rowsBefore = (await store.listChainRows(session.id)).length;
        reset();
        const calls = 10;
        await checkpoint.dispatchBatch(
          Array.from({ length: calls }, (_, i) => ({
            id: `${name}-${i}`,
            name,
            arguments: `{"i":${i}}`,
          })),
          { sessionId: session.id },
        );
        await store.flush();
        const seen = { ...counts };
        const rows = (await store.listChainRows(session.id)).slice(rowsBefore);
        const links = new Set(rows.map((row) => row.hash)).size;
        expect(rows.length).toBeGreaterThanOrEqual(3 * calls);
        expect(seen.eventJson).toBe(rows.length);
        expect(seen.sha256).toBe(links);
        expect(seen.hashCanonical).toBe(calls);
        expect(await store.verifyChain(session.id)).toMatchObject({ ok: true });
      } finally {
        await store.close();
      }
    },
  );
});
