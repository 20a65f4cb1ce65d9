import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { ToolOutputChunk } from "../src/checkpoint/checkpoint-options.js";
import { builtinTools, createCheckpoint, createMemoryEventSink, defineTool } from "../src/index.js";

let workspace: string;
beforeAll(async () => {
  workspace = await realpath(await mkdtemp(join(tmpdir(), "docket-live-")));
});
afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

const allowAll = () => ({ decision: "allow" as const, rule: "allow-all" });

describe("live output of a running handler", () => {
  it("reaches the watcher while run_command runs, and the model still gets the capped capture", async () => {
    const chunks: { text: string; at: number }[] = [];
    const checkpoint = createCheckpoint({
      tools: builtinTools({ workspace, run: { sandbox: { mode: "off" }, maxOutputBytes: 64 } }),
      policy: allowAll,
      events: createMemoryEventSink(),
      onOutput: ({ chunk, stream, tool }: ToolOutputChunk) => {
        expect(tool).toBe("run_command");
        chunks.push({ text: `${stream}:${Buffer.from(chunk).toString()}`, at: Date.now() });
      },
    });
    const started = Date.now();
    const result = await checkpoint.dispatch({
      id: "c1",
      name: "run_command",
      arguments: JSON.stringify({
        command: "echo first; sleep 0.5; seq 1 200; echo oops >&2",
      }),
    });
    const finished = Date.now();
    expect(result.status).toBe("ok");
    const first = chunks.find((c) => c.text.includes("first"));
    expect(first).toBeDefined();
    // Seen before the command ended, not replayed after.
    expect((first?.at ?? finished) - started).toBeLessThan(finished - started - 300);
    expect(chunks.map((c) => c.text).join("")).toContain("stderr:oops");
    // Everything was streamed, but the model's copy is capped.
    expect(chunks.map((c) => c.text).join("")).toContain("\n200\n");
    expect(JSON.stringify(result.output)).toContain("bytes omitted");
  });

  it("cannot be broken by a watcher that throws, and is dropped after the call was stopped", async () => {
    let late = 0;
    const chatty = defineTool({
      name: "chatty",
      description: "talks",
      writes: false,
      input: z.object({}),
      timeoutMs: 50,
      handler: async (_args, ctx) => {
        ctx.output?.("hello", "stdout");
        await new Promise((resolve) => setTimeout(resolve, 150));
        ctx.output?.("too late", "stdout");
        return "done";
      },
    });
    const checkpoint = createCheckpoint({
      tools: [chatty],
      policy: allowAll,
      onOutput: ({ chunk }) => {
        if (chunk === "too late") late += 1;
        throw new Error("watcher broke");
      },
    });
    const result = await checkpoint.dispatch({ id: "c2", name: "chatty", arguments: "{}" });
    expect(result.status).toBe("failed");
    expect(result.reason).toBe("timeout");
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(late).toBe(0);
  });
});
