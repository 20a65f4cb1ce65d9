import { rmSync } from "node:fs";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { createHarness } from "../../src/loop/create-harness.js";
import { createScriptedModel } from "../../src/model/scripted-model.js";
import { openNodeSqlite } from "../../src/store/sqlite/node-sqlite-database.js";
import { defineTool } from "../../src/tool/define-tool.js";
import { call, scriptOf, turn } from "./support/model-script.js";
import { tempStore } from "./support/temp-store.js";

// A write's outcome waits for the next commit (ADR 0081); in the loop that is the batch's commit
// with its transcript. Its result must not leave docket before it: not to a listener's
// `tool_result`, not to the model's next request.

/** The call's state as another process reads it now. */
function stateOutside(path: string, callId: string): string | undefined {
  const db = openNodeSqlite(path);
  try {
    const row = db.prepare("SELECT state FROM calls WHERE call_id = ?").get(callId) as
      | { state: string }
      | undefined;
    return row?.state;
  } finally {
    db.close();
  }
}

/** The model, counting the requests it was sent. */
function counted(inner: LanguageModelV4, requests: { n: number }): LanguageModelV4 {
  return {
    ...inner,
    doGenerate: (options) => {
      requests.n += 1;
      return inner.doGenerate(options);
    },
    doStream: (options) => {
      requests.n += 1;
      return inner.doStream(options);
    },
  };
}

// The write comes last: nothing commits between its handler and the batch's commit.
const oneWrite = () =>
  scriptOf([
    turn("Writing.", call("r1", "read_note", {}), call("w2", "write_note", {})),
    turn("Done."),
  ]);

function tools(run: () => void) {
  return [
    defineTool({
      name: "write_note",
      description: "Use it when a note must be written.",
      input: { type: "object", properties: {} },
      writes: true,
      handler: () => {
        run();
        return "written";
      },
    }),
    defineTool({
      name: "read_note",
      description: "Use it when a note must be read.",
      input: { type: "object", properties: {} },
      writes: false,
      handler: () => "read",
    }),
  ];
}

describe("a write's result in the loop", () => {
  it("is told to listeners only once its outcome is committed", async () => {
    const { store, file } = await tempStore();
    const told: string[] = [];
    const harness = createHarness({
      model: createScriptedModel(oneWrite()),
      tools: tools(() => undefined),
      store,
      policy: () => ({ decision: "allow", rule: "test" }),
    });
    const result = await harness.run("Write it.", {
      onEvent: (event) => {
        if (event.type === "tool_result")
          told.push(
            `${event.result.callId} ${event.result.status} ${stateOutside(file, event.result.callId)}`,
          );
      },
    });
    expect(result.status).toBe("completed");
    expect(told).toEqual(["r1 ok finished", "w2 ok finished"]);
  });

  it("never leaves as ok when the commit that keeps it fails: the run stops before the model hears it", async () => {
    const { store, file } = await tempStore();
    const told: string[] = [];
    const requests = { n: 0 };
    const harness = createHarness({
      model: counted(createScriptedModel(oneWrite()), requests),
      // The intent is committed before the handler; the store's file is gone after it.
      tools: tools(() => {
        for (const suffix of ["", "-wal", "-shm"]) rmSync(`${file}${suffix}`, { force: true });
      }),
      store,
      policy: () => ({ decision: "allow", rule: "test" }),
    });
    const outcome = await harness
      .run("Write it.", {
        onEvent: (event) => {
          if (event.type === "tool_result")
            told.push(`${event.result.callId} ${event.result.status}`);
        },
      })
      .then(
        (result) => result.status,
        (error: unknown) => (error as { code?: string }).code,
      );
    expect(outcome).toBe("store_file_gone");
    expect(told).toEqual([]);
    expect(requests.n).toBe(1);
    // The store is gone: closing it says so (its cleanup must not fail the test).
    await expect(store.close()).rejects.toMatchObject({ code: "store_file_gone" });
  });
});
