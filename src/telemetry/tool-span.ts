import {
  type Attributes,
  type Context,
  ROOT_CONTEXT,
  type Span,
  SpanStatusCode,
} from "@opentelemetry/api";
import type { EventBody } from "../checkpoint/call-trace.js";
import { monotonicMs } from "../shared/monotonic-ms.js";
import { DOCKET, ERROR_TYPE, GEN_AI, OPERATION } from "./semconv.js";
import type { Telemetry } from "./telemetry.js";

/** Model-supplied names and ids are capped before they reach a backend. */
const MAX_NAME = 128;
/** A tool name the checkpoint does not know is one label, however many the model invents. */
const UNKNOWN_TOOL = "_unknown";

/** Recorded content (opt-in) is capped too: a span is not the place for a whole file. */
const MAX_CONTENT = 16 * 1024;

function capContent(text: string): string {
  return text.length > MAX_CONTENT ? `${text.slice(0, MAX_CONTENT)}… [capped]` : text;
}

function cap(text: string): string {
  return text.length > MAX_NAME ? `${text.slice(0, MAX_NAME)}…` : text;
}

/**
 * One call's `execute_tool` span and metrics, fed the call's events as they happen and
 * ended by its last one (`refused`, `finished` or `awaiting_approval`). Built only when something
 * records (see `startToolSpan`), so a checkpoint without an SDK pays for one no-op span.
 */
export class ToolSpan {
  private decision: string | undefined;
  private approvalStarted = 0;
  private ended = false;

  constructor(
    private readonly telemetry: Telemetry,
    private readonly span: Span,
    private readonly tool: string,
    private readonly startedAt: number,
  ) {}

  /** The call was decided after text from outside reached its run: which tools brought it. */
  tainted(tools: readonly string[]): void {
    if (this.ended || !this.span.isRecording()) return;
    this.span.setAttribute(DOCKET.taintedBy, [...new Set(tools)].slice(0, 16).map(cap));
  }

  /** The session's labels when the call was decided, and whether the call can send data out. */
  labelled(labels: readonly string[], sends: boolean): void {
    if (this.ended || !this.span.isRecording()) return;
    this.span.setAttributes({ [DOCKET.labels]: [...labels], [DOCKET.sends]: sends });
  }

  /** Take note of one event of the call. Never throws. */
  note(body: EventBody): void {
    if (this.ended) return;
    try {
      this.observe(body);
    } catch {
      // Telemetry never changes what a call does.
    }
  }

  private observe(body: EventBody): void {
    const span = this.span;
    const recording = span.isRecording();
    switch (body.type) {
      case "requested":
        if (recording && this.telemetry.recordContent)
          span.setAttribute(GEN_AI.toolCallArguments, capContent(body.rawArguments));
        return;
      case "decided":
        this.decision = body.decision;
        if (recording) {
          const attributes: Attributes = { [DOCKET.decision]: body.decision };
          if (body.rule !== undefined) attributes[DOCKET.rule] = body.rule;
          if (body.layer !== undefined) attributes[DOCKET.layer] = body.layer;
          span.setAttributes(attributes);
        }
        return;
      case "approval_requested":
        this.approvalStarted = monotonicMs();
        return;
      case "approved":
      case "approval_denied":
        if (recording) {
          span.setAttribute(DOCKET.approver, body.by);
          if (this.approvalStarted > 0)
            span.setAttribute(DOCKET.approvalWaitMs, monotonicMs() - this.approvalStarted);
        }
        return;
      case "awaiting_approval":
        if (recording) span.setAttribute(DOCKET.approvalId, body.approvalId);
        this.end("awaiting_approval", undefined);
        return;
      case "refused":
        if (recording) span.setAttribute(DOCKET.refusalReason, body.reason);
        this.end("refused", body.reason);
        return;
      case "finished":
        if (recording) {
          const attributes: Attributes = { [DOCKET.outputBytes]: body.outputBytes };
          if (body.source !== undefined) attributes[DOCKET.source] = body.source;
          if (body.tainted !== undefined) attributes[DOCKET.tainted] = body.tainted;
          if (body.private !== undefined) attributes[DOCKET.labelledPrivate] = cap(body.private);
          if (body.secrets !== undefined) attributes[DOCKET.secrets] = [...body.secrets];
          if (this.telemetry.recordContent)
            attributes[GEN_AI.toolCallResult] = capContent(body.output);
          span.setAttributes(attributes);
        }
        this.end(body.status, body.status === "failed" ? (body.reason ?? "error") : undefined);
        return;
      default:
        return;
    }
  }

  private end(status: string, errorType: string | undefined): void {
    this.ended = true;
    const span = this.span;
    if (span.isRecording()) {
      span.setAttribute(DOCKET.status, status);
      if (errorType !== undefined) {
        span.setAttribute(ERROR_TYPE, errorType);
        span.setStatus({ code: SpanStatusCode.ERROR, message: errorType });
      }
    }
    span.end();
    const instruments = this.telemetry.instruments;
    if (instruments === undefined) return;
    const attributes: Attributes = {
      [GEN_AI.toolName]: this.tool,
      [DOCKET.decision]: this.decision ?? "none",
      [DOCKET.status]: status,
    };
    instruments.toolDuration.record((monotonicMs() - this.startedAt) / 1000, attributes);
    if (status === "refused") {
      instruments.refusals.add(1, {
        [GEN_AI.toolName]: this.tool,
        [DOCKET.refusalReason]: errorType ?? "unknown",
      });
    }
  }
}

/**
 * Start a call's `execute_tool` span under `parent` (the run's `invoke_agent` span, or a remote
 * caller's context). Returns undefined when neither a tracer nor a meter records: the caller
 * then skips every note. The span is a child of the given context; nothing reads the active one,
 * so no context manager is needed.
 *
 * @example
 * ```ts
 * declare const telemetry: import("./telemetry.js").Telemetry;
 * const span = startToolSpan(telemetry, { tool: "echo", callId: "call_1", known: true });
 * span?.note({ type: "refused", reason: "denied", message: "…", durationMs: 1 });
 * ```
 */
export function startToolSpan(
  telemetry: Telemetry,
  call: { tool: string; callId: string; known: boolean; type?: string },
  parent: Context = ROOT_CONTEXT,
): ToolSpan | undefined {
  const name = call.known ? call.tool : UNKNOWN_TOOL;
  const span = telemetry.tracer.startSpan(
    call.known ? `${OPERATION.executeTool} ${name}` : OPERATION.executeTool,
    undefined,
    parent,
  );
  if (!span.isRecording() && telemetry.instruments === undefined) {
    span.end();
    return undefined;
  }
  if (span.isRecording()) {
    span.setAttributes({
      [GEN_AI.operationName]: OPERATION.executeTool,
      [GEN_AI.toolName]: call.known ? name : cap(call.tool),
      [GEN_AI.toolCallId]: cap(call.callId),
      [GEN_AI.toolType]: call.type ?? "function",
    });
  }
  return new ToolSpan(telemetry, span, name, monotonicMs());
}
