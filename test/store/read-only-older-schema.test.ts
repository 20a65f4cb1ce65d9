import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createCheckpoint } from "../../src/checkpoint/create-checkpoint.js";
import { openStore } from "../../src/store/open-store.js";
import { openNodeSqlite } from "../../src/store/sqlite/node-sqlite-database.js";
import { defineTool } from "../../src/tool/define-tool.js";
import { toOlderCallsLayout } from "./support/older-calls-layout.js";

const dir = mkdtempSync(join(tmpdir(), "docket-read-only-schema-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A store with a few audited reads, its recorded schema version then set to `version`. */
async function storeAtVersion(name: string, version: number): Promise<string> {
  const path = join(dir, `${name}.db`);
  const store = await openStore(`sqlite:${path}`);
  const session = await store.createSession({ principal: "agent", configHash: "" });
  const echo = defineTool({
    name: "echo",
    description: "Echo a word.",
    input: z.object({ word: z.string() }),
    writes: false,
    handler: ({ word }) => word,
  });
  const checkpoint = createCheckpoint({ tools: [echo], store });
  await checkpoint.dispatchBatch(
    ["a", "b"].map((word, i) => ({ id: `c${i}`, name: "echo", arguments: `{"word":"${word}"}` })),
    { sessionId: session.id },
  );
  await store.close();
  toOlderCallsLayout(path, version);
  return path;
}

describe("a read-only open of an older SQLite store", () => {
  it("reads and verifies a version-7 store as it stands, writing nothing", async () => {
    const path = await storeAtVersion("v7", 7);
    const reader = await openStore(`sqlite:${path}`, { readOnly: true });
    try {
      expect(await reader.verifyChain()).toMatchObject({ ok: true });
      expect((await reader.listEvents({})).length).toBeGreaterThan(0);
    } finally {
      await reader.close();
    }
    const version = openNodeSqlite(path, { readOnly: true })
      .prepare("SELECT version FROM schema_version WHERE id = 1")
      .pluck()
      .get();
    expect(version).toBe(7);
  });

  it("refuses an older one, saying how to migrate it", async () => {
    const path = await storeAtVersion("v6", 6);
    await expect(openStore(`sqlite:${path}`, { readOnly: true })).rejects.toMatchObject({
      code: "store_outdated",
      message: expect.stringMatching(/open it once read-write/),
    });
  });
});
