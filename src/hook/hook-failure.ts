// What a hook says when docket fails: shared by the guard and the daemon's thin client, which
// answers its own failures without loading the guard.
import { maskSecrets } from "../shared/mask-secrets.js";
import { parseJson } from "../shared/parse-json.js";
import { isSettleEvent } from "./settle-event.js";

/**
 * Whether a failure while answering this payload blocks the call: every event but a settle
 * event (the user's next prompt, a session's end), which judges no call and must never be
 * swallowed by a broken docket.
 *
 * @example
 * ```ts
 * blocksOnFailure("claude-code", '{"hook_event_name":"PreToolUse"}'); // true
 * ```
 */
export function blocksOnFailure(host: string, text: string): boolean {
  return !isSettleEvent(host, eventNameOf(text));
}

/**
 * The line a failure writes on standard error: a deny for a blocking event (exit 2, which every
 * host treats as a block), a plain notice otherwise (exit 0).
 *
 * @example
 * ```ts
 * failureLine(true, "docket failed: no store"); // "docket: docket failed: no store; the call is denied.\n"
 * ```
 */
export function failureLine(blocking: boolean, reason: string): string {
  const said = reason.replace(/\s+/g, " ").trim().slice(0, 500);
  return blocking ? `docket: ${said}; the call is denied.\n` : `docket: ${said}.\n`;
}

/**
 * The first line of an error, without a stack, secrets or paths beyond what its message says.
 *
 * @example
 * ```ts
 * describeFailure(new Error("bad\n    at x")); // "bad"
 * ```
 */
export function describeFailure(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return maskSecrets(message.split("\n", 1)[0] ?? "").slice(0, 300) || "an unknown error";
}

function eventNameOf(text: string): unknown {
  try {
    return (parseJson(text) as { hook_event_name?: unknown } | null)?.hook_event_name;
  } catch {
    return undefined;
  }
}
