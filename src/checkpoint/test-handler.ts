import { DocketError } from "../errors/docket-error.js";
import { unsealHandler } from "../tool/handler-seal.js";
import type { Tool, ToolContext } from "../tool/tool.js";
import { idempotencyKeyFor } from "./handler-context.js";

/** What `testHandler` lets a test set; everything has a default. */
export interface TestHandlerOptions {
  /** Default `call_test`. */
  readonly callId?: string | undefined;
  /** Default `agent`. */
  readonly principal?: string | undefined;
  readonly sessionId?: string | undefined;
  /** Default: a signal that never aborts. */
  readonly signal?: AbortSignal | undefined;
}

/** What a handler did when `testHandler` ran it: its output, or its throw, and what it logged. */
export type TestHandlerOutcome<O = unknown> =
  | { readonly status: "returned"; readonly output: O; readonly logs: readonly TestLogLine[] }
  | { readonly status: "threw"; readonly error: unknown; readonly logs: readonly TestLogLine[] };

/** One `ctx.log` line. */
export interface TestLogLine {
  readonly message: string;
  readonly data?: unknown;
}

/**
 * Run a tool's handler in a unit test, without a checkpoint, policy or store: the arguments are
 * validated against the tool's schema (a mismatch throws `DocketError("invalid_tool")` naming the
 * problems, since that is a bug in the test), then the handler runs with a context like the
 * checkpoint's (call id, principal, session, signal, idempotency key, `log`). No policy is
 * consulted and nothing is recorded: it tests what the handler does, not whether it may run.
 *
 * @example
 * ```ts
 * import { expect } from "vitest";
 * declare const getOrder: import("../tool/tool.js").Tool; // made by defineTool
 * const outcome = await testHandler(getOrder, { order_id: "SU-1" });
 * if (outcome.status === "returned") expect(outcome.output).toEqual({ order_id: "SU-1", status: "shipped" });
 * ```
 */
export async function testHandler(
  tool: Tool,
  args: unknown,
  { callId = "call_test", principal = "agent", sessionId, signal }: TestHandlerOptions = {},
): Promise<TestHandlerOutcome> {
  const sealed = unsealHandler(tool);
  if (!sealed) {
    throw new DocketError("invalid_tool", "testHandler needs a tool made by defineTool.");
  }
  const validation = await sealed.input.validate(args);
  if (validation.status === "invalid") {
    const problems = validation.issues
      .map((issue) => `${issue.path || "(the arguments)"}: ${issue.message}`)
      .join("; ");
    throw new DocketError(
      "invalid_tool",
      `testHandler: the arguments do not match ${tool.name}'s input schema: ${problems}`,
    );
  }
  const logs: TestLogLine[] = [];
  const ctx: ToolContext = {
    callId,
    principal,
    sessionId,
    signal: signal ?? new AbortController().signal,
    idempotencyKey: idempotencyKeyFor(sessionId, callId),
    log: (message, data) => logs.push(data === undefined ? { message } : { message, data }),
  };
  try {
    const output = await sealed.handler(validation.value, ctx);
    return { status: "returned", output, logs };
  } catch (error) {
    return { status: "threw", error, logs };
  }
}
