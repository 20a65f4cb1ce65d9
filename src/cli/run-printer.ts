import type { Writable } from "node:stream";
import { showControlCharacters } from "../approval/format-arguments.js";
import type { HarnessEvent, RunResult } from "../loop/harness-options.js";

/** Where a run's progress goes: text to stdout, tool calls and outcomes to stderr, or JSON lines. */
export interface RunPrinter {
  readonly onEvent: (event: HarnessEvent) => void;
  finish(result: RunResult): void;
}

/**
 * Print a run as it happens. Human form: the assistant's text streamed to stdout, each tool call
 * with its decision and outcome on stderr. `json`: one JSON object per line on stdout, at least
 * `{"type":"tool_result",…}` per call and a last `{"type":"run_end",…}`.
 *
 * @example
 * ```ts
 * const printer = createRunPrinter({ json: false });
 * const result = await harness.run(prompt, { onEvent: printer.onEvent });
 * printer.finish(result);
 * ```
 */
export function createRunPrinter({
  json,
  stdout = process.stdout,
  stderr = process.stderr,
}: {
  json: boolean;
  stdout?: Writable;
  stderr?: Writable;
}): RunPrinter {
  const line = (value: unknown) => stdout.write(`${JSON.stringify(value)}\n`);
  let midLine = false;
  const breakLine = () => {
    if (midLine) stdout.write("\n");
    midLine = false;
  };
  return {
    onEvent(event) {
      if (json) {
        switch (event.type) {
          case "tool_result": {
            const { callId, name, status, reason, message } = event.result;
            line({
              type: "tool_result",
              callId,
              name,
              status,
              ...(reason ? { reason } : {}),
              message,
            });
            return;
          }
          case "tool_call":
            line({
              type: "tool_call",
              callId: event.call.id,
              name: event.call.name,
              arguments: event.call.arguments,
            });
            return;
          case "text":
            line({ type: "text", delta: event.delta });
            return;
          case "retry":
            line({ type: "retry", message: event.message, delayMs: event.delayMs });
            return;
          case "run_start":
          case "run_end":
            return;
        }
      }
      switch (event.type) {
        case "text":
          // Model output reaches the operator's terminal: no escape sequences get through.
          stdout.write(showControlCharacters(event.delta));
          midLine = !event.delta.endsWith("\n");
          return;
        case "tool_call":
          breakLine();
          stderr.write(
            `${showControlCharacters(
              `→ ${event.call.name} ${event.call.arguments.length > 200 ? `${event.call.arguments.slice(0, 200)}…` : event.call.arguments}`,
            )}\n`,
          );
          return;
        case "tool_result": {
          const r = event.result;
          const rule = r.rule ? ` [${r.rule}]` : "";
          const mark = r.status === "ok" ? "✓" : r.status === "awaiting_approval" ? "…" : "✗";
          const detail = r.status === "ok" ? "" : `: ${showControlCharacters(r.message)}`;
          stderr.write(
            `  ${mark} ${showControlCharacters(r.name)} ${r.status}${r.reason ? ` (${r.reason})` : ""}${rule}${detail}\n`,
          );
          return;
        }
        case "retry":
          stderr.write(`  ${event.message} Retrying in ${Math.round(event.delayMs)} ms.\n`);
          return;
        case "run_start":
        case "run_end":
          return;
      }
    },
    finish(result) {
      if (json) {
        line({
          type: "run_end",
          status: result.status,
          sessionId: result.sessionId,
          ...(result.error ? { error: result.error } : {}),
          usage: result.usage,
          ...(result.approvals ? { approvals: result.approvals } : {}),
        });
        return;
      }
      breakLine();
      if (result.status !== "completed") stderr.write(`\n${result.text}\n`);
      if (result.status === "suspended" && result.approvals) {
        for (const a of result.approvals)
          stderr.write(
            `  waiting: ${a.approvalId} (${a.tool}) — docket approvals approve ${a.approvalId} --as NAME\n`,
          );
        stderr.write(`  then: docket resume ${result.sessionId}\n`);
      }
      stderr.write(
        `session ${result.sessionId}: ${result.status} (${result.usage.inputTokens} in / ${result.usage.outputTokens} out tokens)\n`,
      );
    },
  };
}
