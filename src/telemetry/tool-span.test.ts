import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { DOCKET, GEN_AI } from "./semconv.js";
import { resolveTelemetry } from "./telemetry.js";
import { startToolSpan } from "./tool-span.js";

function recording() {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  return { exporter, telemetry: resolveTelemetry({ tracerProvider }) };
}

describe("startToolSpan", () => {
  it("builds nothing when no SDK records: no span object to feed, no metrics", () => {
    const telemetry = resolveTelemetry();
    expect(telemetry.instruments).toBeUndefined();
    expect(startToolSpan(telemetry, { tool: "echo", callId: "c1", known: true })).toBeUndefined();
  });

  it("names an unknown tool's span generically and caps what the model invented", () => {
    const { exporter, telemetry } = recording();
    const invented = `x${"y".repeat(5000)}`;
    const span = startToolSpan(telemetry, {
      tool: invented,
      callId: "c".repeat(5000),
      known: false,
    });
    span?.note({ type: "refused", reason: "unknown_tool", message: "no", durationMs: 1 });
    const [finished] = exporter.getFinishedSpans();
    expect(finished?.name).toBe("execute_tool");
    expect(String(finished?.attributes[GEN_AI.toolName]).length).toBeLessThanOrEqual(129);
    expect(String(finished?.attributes[GEN_AI.toolCallId]).length).toBeLessThanOrEqual(129);
    expect(finished?.attributes[DOCKET.refusalReason]).toBe("unknown_tool");
  });

  it("ends once, at the first terminal event, and ignores what comes after", () => {
    const { exporter, telemetry } = recording();
    const span = startToolSpan(telemetry, { tool: "echo", callId: "c1", known: true });
    span?.note({ type: "awaiting_approval", approvalId: "apr_1" });
    span?.note({ type: "refused", reason: "denied", message: "late", durationMs: 2 });
    span?.note({ type: "late_completion", outcome: "returned", durationMs: 3 });
    const spans = exporter.getFinishedSpans();
    expect(spans).toHaveLength(1);
    expect(spans[0]?.attributes).toMatchObject({
      [DOCKET.status]: "awaiting_approval",
      [DOCKET.approvalId]: "apr_1",
    });
    expect(spans[0]?.attributes[DOCKET.refusalReason]).toBeUndefined();
  });

  it("marks a failed call as an error with its reason", () => {
    const { exporter, telemetry } = recording();
    const span = startToolSpan(telemetry, { tool: "echo", callId: "c1", known: true });
    span?.note({
      type: "finished",
      status: "failed",
      reason: "timeout",
      message: "stopped",
      durationMs: 5,
      outputBytes: 0,
      output: "",
    });
    const [finished] = exporter.getFinishedSpans();
    expect(finished?.attributes["error.type"]).toBe("timeout");
    expect(finished?.status.code).toBe(2);
  });

  it("caps recorded content, and records none without recordContent", () => {
    const exporter = new InMemorySpanExporter();
    const tracerProvider = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    for (const recordContent of [true, false]) {
      const telemetry = resolveTelemetry({ tracerProvider, recordContent });
      const span = startToolSpan(telemetry, { tool: "echo", callId: "c1", known: true });
      span?.note({
        type: "requested",
        principal: "agent",
        rawArguments: "a".repeat(100_000),
        rawBytes: 100_000,
      });
      span?.note({
        type: "finished",
        status: "ok",
        reason: undefined,
        message: "ok",
        durationMs: 1,
        outputBytes: 5,
        output: "hello",
      });
    }
    const [withContent, without] = exporter.getFinishedSpans();
    expect(String(withContent?.attributes[GEN_AI.toolCallArguments]).length).toBeLessThan(17_000);
    expect(withContent?.attributes[GEN_AI.toolCallResult]).toBe("hello");
    expect(without?.attributes[GEN_AI.toolCallArguments]).toBeUndefined();
    expect(without?.attributes[GEN_AI.toolCallResult]).toBeUndefined();
  });
});
