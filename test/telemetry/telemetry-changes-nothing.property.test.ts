import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createCheckpoint } from "../../src/checkpoint/create-checkpoint.js";
import { createMemoryEventSink } from "../../src/checkpoint/memory-event-sink.js";
import type { ToolResult } from "../../src/checkpoint/tool-result.js";
import { defineTool } from "../../src/tool/define-tool.js";

const echo = defineTool({
  name: "echo",
  description: "Repeat the text. Use it to test.",
  input: z.object({ text: z.string().describe("What to repeat.") }),
  writes: false,
  handler: ({ text }) => {
    if (text.startsWith("!")) throw new Error("bang");
    return text;
  },
});

const hostileCall = fc.record({
  id: fc.oneof(fc.string(), fc.constant("call_1"), fc.anything()),
  name: fc.oneof(fc.constant("echo"), fc.string(), fc.anything()),
  arguments: fc.oneof(
    fc.string().map((text) => JSON.stringify({ text })),
    fc.string(),
    fc.anything(),
  ),
});

const stable = (result: ToolResult) => ({ ...result, durationMs: 0 });

describe("telemetry never changes what a call does", () => {
  it("gives the same results with a recording SDK as without, and one span per call", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(hostileCall, { maxLength: 8 }), async (calls) => {
        const exporter = new InMemorySpanExporter();
        const tracerProvider = new BasicTracerProvider({
          spanProcessors: [new SimpleSpanProcessor(exporter)],
        });
        const make = (telemetry?: { tracerProvider: BasicTracerProvider; recordContent: true }) =>
          createCheckpoint({
            tools: [echo],
            events: createMemoryEventSink(),
            policy: (request) =>
              request.args.text === "deny" ? { decision: "deny" } : { decision: "allow" },
            ...(telemetry ? { telemetry } : {}),
          });
        const plain = make();
        const traced = make({ tracerProvider, recordContent: true });
        for (const call of calls) {
          const a = await plain.dispatch(call as never);
          const b = await traced.dispatch(call as never);
          expect(stable(b)).toEqual(stable(a));
        }
        expect(exporter.getFinishedSpans()).toHaveLength(calls.length);
      }),
      { numRuns: 150 },
    );
  });
});
