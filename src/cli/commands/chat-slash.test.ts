import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createCheckpoint } from "../../checkpoint/create-checkpoint.js";
import { openStore } from "../../store/open-store.js";
import { defineTool } from "../../tool/define-tool.js";
import { parseChatLine, runSlashCommand } from "./chat-slash.js";

describe("parseChatLine", () => {
  it("reads commands, messages, paths and the // escape", () => {
    expect(parseChatLine("/audit")).toEqual({ type: "command", name: "audit", rest: "" });
    expect(parseChatLine("  /Help me")).toEqual({ type: "command", name: "help", rest: "me" });
    expect(parseChatLine("/etc/hosts has what?")).toEqual({
      type: "message",
      text: "/etc/hosts has what?",
    });
    expect(parseChatLine("//audit is a word")).toEqual({
      type: "message",
      text: "/audit is a word",
    });
    expect(parseChatLine("  ")).toEqual({ type: "empty" });
    expect(parseChatLine("/clear\nand more")).toEqual({
      type: "command",
      name: "clear",
      rest: "and more",
    });
  });

  it("a line starting with /word is never a message (property)", () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[A-Za-z][\w-]{0,12}$/),
        fc.string(),
        (name, rest) => parseChatLine(`/${name} ${rest}`).type === "command",
      ),
    );
  });
});

describe("/audit", () => {
  it("shows the session's latest 20 events, read back from its head", async () => {
    const dir = await mkdtemp(join(tmpdir(), "docket-slash-"));
    const store = await openStore(`sqlite:${join(dir, "docket.db")}`);
    try {
      const noop = defineTool({
        name: "noop",
        description: "Does nothing. Use it in tests.",
        input: z.object({ n: z.number().describe("n") }),
        writes: false,
        handler: ({ n }) => n,
      });
      const checkpoint = createCheckpoint({
        tools: [noop],
        store,
        policy: () => ({ decision: "allow" }),
      });
      // 30 turns of 10 read calls: 1,200 events, each turn's packed in one row.
      for (let turn = 0; turn < 30; turn += 1) {
        const calls = Array.from({ length: 10 }, (_, i) => ({
          id: `call_${turn}_${i}`,
          name: "noop",
          arguments: `{"n":${i}}`,
        }));
        await checkpoint.dispatchBatch(calls, { sessionId: "ses_long" });
      }
      // Counts the events the command reads: the 20 shown, not the session's 1,200.
      let read = 0;
      const counted = new Proxy(store, {
        get(target, key, receiver) {
          if (key !== "listEvents") return Reflect.get(target, key, receiver);
          return async (filter: Parameters<typeof store.listEvents>[0]) => {
            const records = await target.listEvents(filter);
            read += records.length;
            return records;
          };
        },
      });
      let out = "";
      await runSlashCommand("audit", {
        store: counted,
        sessionId: "ses_long",
        write: (t) => (out += t),
      });
      expect(read).toBe(20);
      const seqs = out
        .split("\n")
        .map((line) => /^\s*(\d+)\s/.exec(line)?.[1])
        .filter((seq) => seq !== undefined)
        .map(Number);
      expect(seqs).toEqual(Array.from({ length: 20 }, (_, i) => 1181 + i));
      expect(out).toContain("call_29_9");
    } finally {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
