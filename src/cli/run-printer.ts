import type { Writable } from "node:stream";
import { showControlCharacters } from "../approval/format-arguments.js";
import type { HarnessEvent, RunResult } from "../loop/harness-options.js";
import { colourEnabled } from "../shared/colour-enabled.js";
import { type TerminalStyle, terminalStyle } from "../shared/terminal-style.js";
import { resumeCommand, type WhereFlags } from "./commands/resume-hint.js";
import { createLiveOutput, type LiveOutput } from "./live-output.js";
import { noteToolCall } from "./ran-tool-calls.js";
import { createTerminalSpinner, type TerminalSpinner } from "./terminal-spinner.js";

/** Where a run's progress goes: text to stdout, tool calls and outcomes to stderr, or JSON lines. */
export interface RunPrinter {
  readonly onEvent: (event: HarnessEvent) => void;
  finish(result: RunResult): void;
  /** Write whole lines of one's own to standard error, clear of the spinner. Bound. */
  readonly note: (lines: string) => void;
}

/** Options for `createRunPrinter`. */
export interface RunPrinterOptions {
  json: boolean;
  stdout?: Writable;
  stderr?: Writable & { readonly isTTY?: boolean };
  /** Colour on standard error. Default: `colourEnabled(stderr)` (a TTY, no NO_COLOR / --no-color). */
  colour?: boolean;
  /** The spinner and the live output of running commands. Default: standard error is a TTY. */
  live?: boolean;
  /** The run's own flags, carried into the commands it prints (`docket resume …`). */
  where?: WhereFlags;
}

/**
 * Print a run as it happens. Human form: the assistant's text streamed to stdout, each tool call
 * with its decision and outcome on stderr, coloured by status (the words stay); at a terminal
 * also a spinner with elapsed time while the model thinks or a tool runs, and a running
 * command's output as it comes, indented and dimmed. `json`: one JSON object per line on
 * stdout, at least `{"type":"tool_result",…}` per call and a last `{"type":"run_end",…}`.
 *
 * @example
 * ```ts
 * declare const harness: import("../loop/create-harness.js").Harness;
 * const prompt = "Refund SU-1001";
 * const printer = createRunPrinter({ json: false });
 * const result = await harness.run(prompt, { onEvent: printer.onEvent });
 * printer.finish(result);
 * ```
 */
export function createRunPrinter({
  json,
  stdout = process.stdout,
  stderr = process.stderr,
  colour = colourEnabled(stderr),
  live = stderr.isTTY === true,
  where = {},
}: RunPrinterOptions): RunPrinter {
  const line = (value: unknown) => stdout.write(`${JSON.stringify(value)}\n`);
  if (json) {
    return {
      onEvent: (event) => {
        if (event.type === "tool_result") noteToolCall();
        const value = jsonEvent(event);
        if (value !== undefined) line(value);
      },
      note: (text) => stderr.write(text),
      finish(result) {
        line({
          type: "run_end",
          status: result.status,
          sessionId: result.sessionId,
          ...(result.error ? { error: result.error } : {}),
          usage: result.usage,
          ...(result.approvals ? { approvals: result.approvals } : {}),
        });
      },
    };
  }
  const style = terminalStyle(colour);
  const spinner = createTerminalSpinner({ stream: stderr, enabled: live, dim: style.dim });
  return humanPrinter({ stdout, stderr, style, spinner, live, where });
}

function jsonEvent(event: HarnessEvent): unknown {
  switch (event.type) {
    case "tool_result": {
      const { callId, name, status, reason, message } = event.result;
      return { type: "tool_result", callId, name, status, ...(reason ? { reason } : {}), message };
    }
    case "tool_call":
      return {
        type: "tool_call",
        callId: event.call.id,
        name: event.call.name,
        arguments: event.call.arguments,
      };
    case "text":
      return { type: "text", delta: event.delta };
    case "retry":
      return { type: "retry", message: event.message, delayMs: event.delayMs };
    default:
      return undefined;
  }
}

const MARKS: Record<string, string> = { ok: "✓", awaiting_approval: "…" };

function humanPrinter({
  stdout,
  stderr,
  style,
  spinner,
  live,
  where,
}: {
  stdout: Writable;
  stderr: Writable;
  style: TerminalStyle;
  spinner: TerminalSpinner;
  live: boolean;
  where: WhereFlags;
}): RunPrinter {
  let midLine = false;
  const running = new Map<string, LiveOutput>();
  const breakLine = () => {
    if (midLine) stdout.write("\n");
    midLine = false;
  };
  // Whole lines on stderr: the spinner steps aside and comes back.
  const say = (text: string) => spinner.around(() => stderr.write(text));
  const endLive = (callId: string) => {
    running.get(callId)?.end();
    running.delete(callId);
  };
  return {
    note: say,
    onEvent(event) {
      if (event.type === "tool_result") noteToolCall();
      switch (event.type) {
        case "run_start":
          spinner.start("thinking");
          return;
        case "text":
          spinner.stop();
          // Model output reaches the operator's terminal: no escape sequences get through.
          stdout.write(showControlCharacters(event.delta));
          midLine = !event.delta.endsWith("\n");
          return;
        case "tool_call": {
          spinner.stop();
          breakLine();
          const args = event.call.arguments;
          const shown = args.length > 200 ? `${args.slice(0, 200)}…` : args;
          stderr.write(`${showControlCharacters(`→ ${event.call.name} ${shown}`)}\n`);
          return;
        }
        case "approval_requested":
          // The approver owns the terminal now.
          spinner.stop();
          return;
        case "tool_started":
          if (live) {
            running.set(
              event.callId,
              createLiveOutput({ write: say, dim: style.dim, intervalMs: 50 }),
            );
          }
          spinner.start(`running ${showControlCharacters(event.name)}`);
          return;
        case "tool_output":
          running.get(event.callId)?.push(event.stream, event.chunk);
          return;
        case "tool_result": {
          endLive(event.result.callId);
          spinner.stop();
          const r = event.result;
          const rule = r.rule ? ` [${r.rule}]` : "";
          const mark = MARKS[r.status] ?? "✗";
          const detail = r.status === "ok" ? "" : `: ${showControlCharacters(r.message)}`;
          const status = style.status(
            r.status,
            `${mark} ${showControlCharacters(r.name)} ${r.status}`,
          );
          stderr.write(`  ${status}${r.reason ? ` (${r.reason})` : ""}${rule}${detail}\n`);
          // Back to the model (or on to the next call of the batch, which is quick).
          spinner.start("thinking");
          return;
        }
        case "retry":
          say(`  ${event.message} Retrying in ${Math.round(event.delayMs)} ms.\n`);
          return;
        case "run_end":
          spinner.stop();
          return;
      }
    },
    finish(result) {
      for (const callId of [...running.keys()]) endLive(callId);
      spinner.stop();
      breakLine();
      if (result.status !== "completed") stderr.write(`\n${result.text}\n`);
      if (result.status === "suspended" && result.approvals) {
        for (const a of result.approvals)
          stderr.write(
            `  ${style.status("waiting")}: ${a.approvalId} (${a.tool}) — ${resumeCommand(["approvals", "approve", a.approvalId], { config: where.config, store: where.store })} --as NAME\n`,
          );
        stderr.write(`  then: ${resumeCommand(["resume", result.sessionId], where)}\n`);
      }
      stderr.write(
        `session ${result.sessionId}: ${style.status(result.status)} (${result.usage.inputTokens} in / ${result.usage.outputTokens} out tokens)\n`,
      );
    },
  };
}
