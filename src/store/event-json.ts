import { canonicalJson } from "../shared/canonical-json.js";
import { primitiveJson, sameKeys, stringJson } from "./json-members.js";
import type { StoreEvent } from "./store-event.js";

/**
 * The keys of the four events every call that runs emits, in canonical order, exactly as the
 * checkpoint builds them (`eventOf` in src/checkpoint/call-trace.ts: every key present, some
 * with the value undefined). An event with any other set or order of keys is left to
 * `canonicalJson`.
 */
const REQUESTED = [
  "at",
  "callId",
  "principal",
  "rawArguments",
  "rawBytes",
  "sessionId",
  "tool",
  "type",
] as const;
const DECIDED = [
  "args",
  "at",
  "callId",
  "decision",
  "explanation",
  "layer",
  "reason",
  "rule",
  "sessionId",
  "tool",
  "type",
] as const;
const STARTED = ["at", "callId", "sessionId", "timeoutMs", "tool", "type", "writes"] as const;
const FINISHED = [
  "at",
  "callId",
  "durationMs",
  "message",
  "output",
  "outputBytes",
  "reason",
  "sessionId",
  "status",
  "tool",
  "type",
] as const;

/**
 * The events `eventJson` writes by hand, by type, with their keys in the order they must come.
 *
 * @example
 * ```ts
 * HAND_WRITTEN_EVENTS.started; // ["at", "callId", "sessionId", "timeoutMs", "tool", "type", "writes"]
 * ```
 */
export const HAND_WRITTEN_EVENTS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  // Copies: the lists the shape check reads are not reachable through this export.
  requested: Object.freeze([...REQUESTED]),
  decided: Object.freeze([...DECIDED]),
  started: Object.freeze([...STARTED]),
  finished: Object.freeze([...FINISHED]),
});

/**
 * The canonical JSON text of an audit event: the same text as `canonicalJson(event)`, byte for
 * byte, written by hand for the four events of a call that runs. Node 20's JSON.stringify costs
 * about 100 ns before it writes a byte, so serialising those four events took about 3 µs of
 * every call's audit write; written as template strings with named property reads, 1.5 µs
 * (ADR 0018, "Third step"). Any event of another shape, with an inherited or `toJSON` twist, or
 * with keys in another order, goes to `canonicalJson`; nested values (the decided arguments,
 * any field that is not a string, number or boolean) are written by `canonicalJson` too, which
 * gives a member the same text as it has inside its parent. A property test compares both on
 * arbitrary events (`event-json.test.ts`).
 *
 * @example
 * ```ts
 * eventJson({ at: 1, callId: "c1", sessionId: "s", timeoutMs: 5, tool: "t", type: "started", writes: false });
 * // '{"at":1,"callId":"c1","sessionId":"s","timeoutMs":5,"tool":"t","type":"started","writes":false}'
 * ```
 */
export function eventJson(event: StoreEvent): string {
  if (Object.getPrototypeOf(event) !== Object.prototype) return canonicalJson(event);
  if (typeof (event as { toJSON?: unknown }).toJSON === "function") return canonicalJson(event);
  // Saved and restored: a getter on the event could emit another event, and so come back here.
  const outer = unwritten;
  unwritten = false;
  let text: string;
  let left: boolean;
  try {
    text = shapedJson(event);
  } finally {
    left = unwritten;
    unwritten = outer;
  }
  // A nested value with a `toJSON` of its own: its text is whatever that gives, in context.
  return left ? canonicalJson(event) : text;
}

/** Set when a value was left unwritten: the event's text is then `canonicalJson`'s. */
let unwritten = false;

function shapedJson(event: StoreEvent): string {
  const keys = Object.keys(event);
  // Read through a record type: the compiler's union does not know that keys were checked.
  const e = event as unknown as Record<string, unknown>;
  let t = "{";
  switch (event.type) {
    case "requested":
      if (!sameKeys(keys, REQUESTED)) return canonicalJson(event);
      t = field(t, '"at":', e.at);
      t = withJson(t, '"callId":', repeatedJson(CALL_ID, e.callId));
      t = field(t, '"principal":', e.principal);
      t = field(t, '"rawArguments":', e.rawArguments);
      t = field(t, '"rawBytes":', e.rawBytes);
      t = withJson(t, '"sessionId":', repeatedJson(SESSION_ID, e.sessionId));
      t = withJson(t, '"tool":', repeatedJson(TOOL, e.tool));
      t = withJson(t, '"type":', '"requested"');
      return `${t}}`;
    case "decided":
      if (!sameKeys(keys, DECIDED)) return canonicalJson(event);
      t = field(t, '"args":', e.args);
      t = field(t, '"at":', e.at);
      t = withJson(t, '"callId":', repeatedJson(CALL_ID, e.callId));
      t = field(t, '"decision":', e.decision);
      t = field(t, '"explanation":', e.explanation);
      t = field(t, '"layer":', e.layer);
      t = field(t, '"reason":', e.reason);
      t = field(t, '"rule":', e.rule);
      t = withJson(t, '"sessionId":', repeatedJson(SESSION_ID, e.sessionId));
      t = withJson(t, '"tool":', repeatedJson(TOOL, e.tool));
      t = withJson(t, '"type":', '"decided"');
      return `${t}}`;
    case "started":
      if (!sameKeys(keys, STARTED)) return canonicalJson(event);
      t = field(t, '"at":', e.at);
      t = withJson(t, '"callId":', repeatedJson(CALL_ID, e.callId));
      t = withJson(t, '"sessionId":', repeatedJson(SESSION_ID, e.sessionId));
      t = field(t, '"timeoutMs":', e.timeoutMs);
      t = withJson(t, '"tool":', repeatedJson(TOOL, e.tool));
      t = withJson(t, '"type":', '"started"');
      t = field(t, '"writes":', e.writes);
      return `${t}}`;
    case "finished":
      if (!sameKeys(keys, FINISHED)) return canonicalJson(event);
      t = field(t, '"at":', e.at);
      t = withJson(t, '"callId":', repeatedJson(CALL_ID, e.callId));
      t = field(t, '"durationMs":', e.durationMs);
      t = field(t, '"message":', e.message);
      t = field(t, '"output":', e.output);
      t = field(t, '"outputBytes":', e.outputBytes);
      t = field(t, '"reason":', e.reason);
      t = withJson(t, '"sessionId":', repeatedJson(SESSION_ID, e.sessionId));
      t = field(t, '"status":', e.status);
      t = withJson(t, '"tool":', repeatedJson(TOOL, e.tool));
      t = withJson(t, '"type":', '"finished"');
      return `${t}}`;
    default:
      return canonicalJson(event);
  }
}

/** `text` with one more member, or as it was when the value is one JSON leaves out. */
function field(text: string, prefix: string, value: unknown): string {
  return withJson(text, prefix, valueJson(value));
}

function withJson(text: string, prefix: string, json: string | undefined): string {
  if (json === undefined) return text;
  return text === "{" ? `{${prefix}${json}` : `${text},${prefix}${json}`;
}

/** The last string seen in a field that all of a call's events share, and its JSON. */
interface Repeated {
  text: string;
  json: string;
}
const CALL_ID: Repeated = { text: "", json: '""' };
const SESSION_ID: Repeated = { text: "", json: '""' };
const TOOL: Repeated = { text: "", json: '""' };

/** A call's id, session and tool are the same strings in its four events: quoted once. */
function repeatedJson(last: Repeated, value: unknown): string | undefined {
  if (value === last.text) return last.json;
  if (typeof value !== "string") return valueJson(value);
  last.text = value;
  last.json = stringJson(value);
  return last.json;
}

/** A member's value as canonical JSON; undefined for what JSON.stringify drops. */
function valueJson(value: unknown): string | undefined {
  const json = primitiveJson(value);
  if (json !== undefined) return json;
  const kind = typeof value;
  if (kind === "undefined" || kind === "function" || kind === "symbol") return undefined;
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") {
    unwritten = true;
    return undefined;
  }
  // Objects and BigInt (which throws there, as it does for the whole event).
  return canonicalJson(value);
}
