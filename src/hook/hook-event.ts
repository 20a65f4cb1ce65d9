import { createHash } from "node:crypto";
import { canonicalJson } from "../shared/canonical-json.js";
import { parseJson } from "../shared/parse-json.js";
import { type HostName, hostAdapter } from "./host-registry.js";
import { ID_PATTERN, isSettleEvent, readSettleEvent, type SettleEvent } from "./settle-event.js";

/** A host's hook call, read: which moment, which session, which tool call. */
export interface HookEvent {
  readonly host: HostName;
  /** `before`: may it run? `after`: it ran (or failed). `permission`: the host is about to prompt. */
  readonly kind: "before" | "after" | "permission";
  readonly sessionId: string;
  readonly toolName: string;
  /** The host's `tool_input`, as JSON text (the audit trail's raw arguments). */
  readonly inputText: string;
  /** The host's id of the tool call; for hosts that send none, one derived from the call. */
  readonly callId: string;
  /** Whether the host gave the id (false: it was derived, and `after` must find its call). */
  readonly hostCallId: boolean;
  /** After: what the tool answered, and whether the host says it failed. */
  readonly response?: unknown;
  readonly failed?: boolean;
}

/**
 * A hook call read: a tool call to judge or record (`read`), the end of the calls handed to the
 * host's prompt (`settle`), or not one docket answers. An `unreadable` payload is answered deny.
 */
export type HookEventReading =
  | { readonly status: "read"; readonly event: HookEvent }
  | { readonly status: "settle"; readonly event: SettleEvent }
  | { readonly status: "ignored"; readonly why: string }
  | { readonly status: "unreadable"; readonly problem: string };

const MAX_PAYLOAD_BYTES = 4 * 1024 * 1024;

/**
 * The id a call of a host that sends none (gemini-cli) is known by: the tool and its canonical
 * input, hashed, so that `after` finds the call `before` cleared; a timestamp keeps two runs of
 * the same command apart.
 *
 * @example
 * ```ts
 * derivedCallPrefix("run_shell_command", { command: "ls" }); // "h-3f1c…-"
 * ```
 */
export function derivedCallPrefix(toolName: string, input: unknown): string {
  const digest = createHash("sha256")
    .update(`${toolName}\n${canonicalJson(input)}`)
    .digest("hex");
  return `h-${digest.slice(0, 24)}-`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Read a hook payload from its text. Fails closed: anything but a JSON object with a known event,
 * a session id, a tool name and an object `tool_input` is `unreadable` (and answered deny).
 * Events docket does not judge (SessionStart, …) are `ignored`.
 *
 * @example
 * ```ts
 * readHookEvent("claude-code", '{"hook_event_name":"PreToolUse","session_id":"s1","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"toolu_1"}');
 * // { status: "read", event: { kind: "before", toolName: "Bash", callId: "toolu_1", … } }
 * ```
 */
export function readHookEvent(
  host: HostName,
  text: string,
  now: () => number = Date.now,
): HookEventReading {
  if (Buffer.byteLength(text) > MAX_PAYLOAD_BYTES) {
    return { status: "unreadable", problem: `the payload is over ${MAX_PAYLOAD_BYTES} bytes` };
  }
  let payload: unknown;
  try {
    payload = parseJson(text);
  } catch {
    return { status: "unreadable", problem: "the payload is not JSON" };
  }
  if (!isRecord(payload)) return { status: "unreadable", problem: "the payload is not an object" };
  const eventName = payload.hook_event_name;
  if (typeof eventName !== "string") {
    return { status: "unreadable", problem: "hook_event_name is missing" };
  }
  if (isSettleEvent(host, eventName)) {
    // A settle event blocks nothing: one that does not read settles nothing, and is not a deny.
    const settle = readSettleEvent(host, eventName, payload);
    return typeof settle === "string"
      ? { status: "ignored", why: `nothing to settle: ${settle}` }
      : { status: "settle", event: settle };
  }
  const adapter = hostAdapter(host);
  const hostKind = Object.hasOwn(adapter.events, eventName) ? adapter.events[eventName] : undefined;
  if (hostKind === undefined || hostKind === "settle") {
    return { status: "ignored", why: `docket does not judge ${host}'s ${eventName} events` };
  }
  const kind = hostKind === "after-failure" ? "after" : hostKind;
  const sessionId = payload[adapter.ids.session];
  if (typeof sessionId !== "string" || !ID_PATTERN.test(sessionId)) {
    return { status: "unreadable", problem: "session_id is missing or not a plain id" };
  }
  const toolName = payload.tool_name;
  if (typeof toolName !== "string" || toolName === "" || toolName.length > 256) {
    return { status: "unreadable", problem: "tool_name is missing" };
  }
  const input = payload.tool_input;
  if (!isRecord(input)) return { status: "unreadable", problem: "tool_input is not an object" };
  const given = payload[adapter.ids.call];
  if (given !== undefined && (typeof given !== "string" || !ID_PATTERN.test(given))) {
    return { status: "unreadable", problem: "tool_use_id is not a plain id" };
  }
  const inputText = JSON.stringify(input);
  const callId = given ?? `${derivedCallPrefix(toolName, input)}${now()}`;
  const base = {
    host,
    kind,
    sessionId,
    toolName,
    inputText,
    callId,
    hostCallId: given !== undefined,
  };
  if (kind !== "after") return { status: "read", event: base };
  const response = payload.tool_response ?? payload.error;
  return {
    status: "read",
    event: { ...base, response, failed: hostKind === "after-failure" || responseFailed(payload) },
  };
}

/** Whether the host reports the call as failed by an error in its payload or response. */
function responseFailed(payload: Record<string, unknown>): boolean {
  if (payload.error !== undefined) return true;
  const response = payload.tool_response;
  if (!isRecord(response)) return false;
  if (response.error !== undefined && response.error !== null) return true;
  if (response.success === false || response.is_error === true) return true;
  return false;
}
