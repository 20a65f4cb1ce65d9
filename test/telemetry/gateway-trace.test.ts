import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createCheckpoint } from "../../src/checkpoint/create-checkpoint.js";
import { startTelemetry } from "../../src/cli/start-telemetry.js";
import { createGatewayServer } from "../../src/mcp/gateway-server.js";
import { DOCKET, GEN_AI } from "../../src/telemetry/semconv.js";
import { defineTool } from "../../src/tool/define-tool.js";
import { startOtlpReceiver } from "../support/otlp-receiver.js";

const echo = defineTool({
  name: "echo",
  description: "Repeat the text. Use it to test the gateway.",
  input: z.object({ text: z.string().describe("What to repeat.") }),
  writes: false,
  handler: ({ text }) => text,
});

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const CLIENT_SPAN = "00f067aa0ba902b7";

let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
beforeEach(async () => {
  receiver = await startOtlpReceiver();
});
afterEach(() => receiver.close());

async function gatewayCalls(calls: { text: string; traceparent?: unknown }[]) {
  const started = await startTelemetry({ endpoint: receiver.url });
  const checkpoint = createCheckpoint({ tools: [echo], telemetry: started.options });
  const server = createGatewayServer({ checkpoint, tools: () => checkpoint.tools });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "trace-test", version: "1.0.0" });
  await client.connect(clientSide);
  for (const { text, traceparent } of calls) {
    await client.callTool({
      name: "echo",
      arguments: { text },
      ...(traceparent === undefined ? {} : { _meta: { traceparent } }),
    });
  }
  await client.close();
  await started.shutdown();
  return receiver.spans.filter((s) => s.name === "execute_tool echo");
}

describe("the gateway's execute_tool spans", () => {
  it("continue the trace an MCP client sends in _meta.traceparent", async () => {
    const [span] = await gatewayCalls([
      { text: "hi", traceparent: `00-${TRACE_ID}-${CLIENT_SPAN}-01` },
    ]);
    expect(span?.traceId).toBe(TRACE_ID);
    expect(span?.parentSpanId).toBe(CLIENT_SPAN);
    expect(span?.attributes[GEN_AI.toolName]).toBe("echo");
    expect(span?.attributes[DOCKET.status]).toBe("ok");
  });

  it("start a fresh trace without one, or with a forged one", async () => {
    const spans = await gatewayCalls([
      { text: "a" },
      { text: "b", traceparent: `00-${"0".repeat(32)}-${CLIENT_SPAN}-01` },
      { text: "c", traceparent: { traceId: TRACE_ID } },
    ]);
    expect(spans).toHaveLength(3);
    for (const span of spans) {
      expect(span.parentSpanId).toBe("");
      expect(span.traceId).not.toBe(TRACE_ID);
    }
  });
});
