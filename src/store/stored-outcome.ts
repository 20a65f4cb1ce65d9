import { DocketError } from "../errors/docket-error.js";
import { parseJson } from "../shared/parse-json.js";
import type { CallOutcome } from "./call-record.js";
import type { CallRow, ResultEcho } from "./call-state.js";
import { primitiveJson, sameKeys, withMember } from "./json-members.js";

/**
 * Marks that stand for a field of a stored outcome (schema 9, ADR 0018). A stored outcome's
 * `message` and `output` are otherwise strings (or absent), never numbers, so a number there is
 * always one of these.
 */
const RESULT_TEXT = 1;
/** The output is the JSON of the result's output (a number, a boolean or null). */
const RESULT_JSON = 2;

/**
 * The `outcome` column of a calls row: the outcome's JSON, with its message and output replaced
 * by a mark when they are the same as the saved result's, which then holds them once. A call's
 * output was stored three times (the `finished` event, the result, the outcome); now twice.
 *
 * @example
 * ```ts
 * declare const row: import("./call-state.js").CallRow; // a finished call
 * storedOutcome(row); // '{"kind":"finished","status":"ok","message":1,"output":1,"at":…}'
 * ```
 */
export function storedOutcome(row: CallRow): string | null {
  const { outcome, resultEcho: echo } = row;
  if (!outcome) return null;
  if (echo === undefined || row.result === undefined) {
    return outcomeJson(outcome, outcome.message, outcome.output);
  }
  const message =
    typeof echo.message === "string" && echo.message === outcome.message
      ? RESULT_TEXT
      : outcome.message;
  return outcomeJson(outcome, message, outputMark(outcome.output, echo.output));
}

function outputMark(output: string | undefined, value: unknown): string | number | undefined {
  if (typeof output !== "string") return output;
  if (typeof value === "string") return value === output ? RESULT_TEXT : output;
  if (value === null || typeof value === "number" || typeof value === "boolean") {
    return primitiveJson(value) === output ? RESULT_JSON : output;
  }
  return output;
}

/** The keys of an outcome as docket builds it (`call-state.ts`), in their order. */
const OUTCOME_KEYS = [
  "kind",
  "status",
  "reason",
  "message",
  "output",
  "approvalId",
  "durationMs",
  "at",
] as const;

/**
 * `JSON.stringify({ ...outcome, message, output })`, byte for byte: written by hand for an
 * outcome of docket's own shape whose fields are all strings, numbers or absent (Node 20's
 * JSON.stringify costs about 100 ns before it writes a byte; ADR 0018, "Third step").
 */
export function outcomeJson(outcome: CallOutcome, message: unknown, output: unknown): string {
  const fast =
    Object.getPrototypeOf(outcome) === Object.prototype &&
    sameKeys(Object.keys(outcome), OUTCOME_KEYS);
  if (fast) {
    let text = "{";
    text = withMember(text, '"kind":', outcome.kind);
    text = withMember(text, '"status":', outcome.status);
    text = withMember(text, '"reason":', outcome.reason);
    text = withMember(text, '"message":', message);
    text = withMember(text, '"output":', output);
    text = withMember(text, '"approvalId":', outcome.approvalId);
    text = withMember(text, '"durationMs":', outcome.durationMs);
    text = withMember(text, '"at":', outcome.at);
    if (text !== "") return `${text}}`;
  }
  if (message === outcome.message && output === outcome.output) return JSON.stringify(outcome);
  return JSON.stringify({ ...outcome, message, output });
}

/**
 * A calls row's outcome as stored (text, or undefined), its marks replaced by the saved result's
 * fields; with that result's message and output when it had to be read. A mark without a result
 * that has the field it stands for is refused: the row was altered, and no outcome is made up.
 *
 * @example
 * ```ts
 * declare const row: { outcome: unknown; result: string }; // a calls row as read
 * readOutcome(row.outcome, row.result).outcome?.message; // "echo succeeded."
 * ```
 */
export function readOutcome(
  stored: unknown,
  resultText: string | undefined,
): { outcome: CallOutcome | undefined; echo: ResultEcho | undefined } {
  if (stored === null || stored === undefined) return { outcome: undefined, echo: undefined };
  const outcome = parseJson(String(stored)) as Record<string, unknown>;
  if (typeof outcome.message !== "number" && typeof outcome.output !== "number") {
    return { outcome: outcome as unknown as CallOutcome, echo: undefined };
  }
  const echo = echoOf(resultText);
  const message = unmark(outcome.message, echo.message, "message");
  const output = unmark(outcome.output, echo.output, "output");
  return { outcome: { ...outcome, message, output } as unknown as CallOutcome, echo };
}

function echoOf(resultText: string | undefined): ResultEcho {
  let result: unknown;
  try {
    result = resultText === undefined ? undefined : parseJson(resultText);
  } catch {
    result = undefined;
  }
  if (typeof result !== "object" || result === null) throw altered("it has no readable result");
  const { message, output } = result as { message?: unknown; output?: unknown };
  return { message, output: output === null || typeof output !== "object" ? output : undefined };
}

function unmark(field: unknown, value: unknown, name: "message" | "output"): unknown {
  if (typeof field !== "number") return field;
  if (field === RESULT_TEXT && typeof value === "string") return value;
  if (
    field === RESULT_JSON &&
    name === "output" &&
    (value === null || typeof value === "number" || typeof value === "boolean")
  ) {
    return JSON.stringify(value);
  }
  throw altered(`its result has no ${name} its outcome refers to`);
}

function altered(why: string): DocketError {
  return new DocketError(
    "invalid_call_result",
    `A recorded call's outcome cannot be read: ${why}. The calls row was altered outside docket; the call is not answered from it.`,
  );
}
