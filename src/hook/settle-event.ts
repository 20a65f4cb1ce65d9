// Imported by the hook guard before anything heavy loads: the registry is data.
import { type HostName, hostAdapter, isHostName } from "./host-registry.js";

/**
 * A host event that says the calls it handed to its own prompt are over: those that have not
 * reported running by now never will. `callIds` narrows it to the calls it names (Claude Code's
 * PostToolBatch); undefined means every such call of the session.
 */
export interface SettleEvent {
  readonly host: HostName;
  readonly eventName: string;
  readonly sessionId: string;
  readonly callIds: readonly string[] | undefined;
}

/**
 * The events of a host after which no call it asked its user about is still waiting (its
 * adapter's `settle` events), as seen on the real hosts (test/hook/*-refusal-e2e.test.ts):
 * Claude Code's PostToolBatch (every call of a batch resolved; a call refused in `-p` mode is
 * listed with no PostToolUse), UserPromptSubmit (a refusal at the interactive prompt interrupts
 * the turn: nothing fires until the user's next prompt) and SessionEnd; gemini-cli's BeforeAgent,
 * AfterAgent and SessionEnd (Esc at its confirmation cancels the request: no AfterTool, no
 * AfterAgent, and the user's next prompt is the next event). Codex and opencode never hand a
 * call to a prompt of their own (hooks.ask is wait or deny there).
 *
 * @example
 * ```ts
 * settleEvents("claude-code"); // ["PostToolBatch", "UserPromptSubmit", "SessionEnd"]
 * ```
 */
export function settleEvents(host: HostName): string[] {
  return Object.entries(hostAdapter(host).events)
    .filter(([, kind]) => kind === "settle")
    .map(([name]) => name);
}

/** A plain id (session, tool call) as hosts send them: nothing a path or a shell could misread. */
export const ID_PATTERN = /^[\w.:@-]{1,200}$/;
const MAX_BATCH = 1000;

/**
 * Whether a payload of `host` named `eventName` is a settle event. Its hook never blocks: a
 * failure there (a store that does not open, a payload that does not read) must not stop the
 * user's prompt, and blocks no call.
 *
 * @example
 * ```ts
 * isSettleEvent("claude-code", "UserPromptSubmit"); // true
 * isSettleEvent("claude-code", "PreToolUse"); // false
 * ```
 */
export function isSettleEvent(host: string, eventName: unknown): boolean {
  if (typeof eventName !== "string" || !isHostName(host)) return false;
  const events = hostAdapter(host).events;
  return Object.hasOwn(events, eventName) && events[eventName] === "settle";
}

/**
 * Read a settle event from its parsed payload: a plain session id, and for a batch the plain
 * `tool_use_id` of each of its `tool_calls`. Anything else is a reason, and nothing is settled.
 *
 * @example
 * ```ts
 * readSettleEvent("claude-code", "PostToolBatch", { session_id: "s1", tool_calls: [{ tool_use_id: "toolu_1" }] });
 * // { host: "claude-code", eventName: "PostToolBatch", sessionId: "s1", callIds: ["toolu_1"] }
 * ```
 */
export function readSettleEvent(
  host: HostName,
  eventName: string,
  payload: Readonly<Record<string, unknown>>,
): SettleEvent | string {
  const sessionId = payload[hostAdapter(host).ids.session];
  if (typeof sessionId !== "string" || !ID_PATTERN.test(sessionId)) {
    return "session_id is missing or not a plain id";
  }
  if (eventName !== "PostToolBatch") return { host, eventName, sessionId, callIds: undefined };
  const calls = payload.tool_calls;
  if (!Array.isArray(calls) || calls.length > MAX_BATCH) {
    return `tool_calls is not a list of at most ${MAX_BATCH} calls`;
  }
  const callIds: string[] = [];
  for (const call of calls) {
    const id =
      typeof call === "object" && call !== null
        ? (call as Record<string, unknown>).tool_use_id
        : undefined;
    if (typeof id !== "string" || !ID_PATTERN.test(id)) return "a tool_use_id is not a plain id";
    callIds.push(id);
  }
  return { host, eventName, sessionId, callIds };
}
