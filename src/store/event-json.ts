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
 * Events a process writes through `canonicalJson` before it writes them by hand. The hand writer
 * is faster once V8 has compiled it and slower until then: in the loop bench's window (runs 2 to
 * 6 of fresh processes, a few hundred calls) docket spent 7-16 µs more a call with it than with
 * `canonicalJson`, whose work is mostly the native JSON.stringify; after 20,000 calls it saves
 * about 4 µs a read call (ADR 0096). Both give the same text for the plain objects the checkpoint
 * builds (a getter that answers differently each time it is read may not: `canonicalJson` reads
 * a property twice, the hand writer once).
 */
export const NATIVE_EVENTS_FIRST = 4096;
let nativeEventsFirst = NATIVE_EVENTS_FIRST;
let eventsWritten = 0;

/**
 * Write this process's events by hand after `count` of them instead of `NATIVE_EVENTS_FIRST`:
 * the test suite's setup sets 0, so that tests in process, whose stores write far fewer than
 * 4,096 events, keep the hand writer under the chain and tamper checks, while the docket processes
 * the tests start keep the default.
 *
 * @example
 * ```ts
 * setNativeEventsFirst(0); // every event of this process written by hand from now on
 * ```
 */
export function setNativeEventsFirst(count: number): void {
  nativeEventsFirst = count;
}

/**
 * The canonical JSON text of an audit event: the same text as `canonicalJson(event)`, byte for
 * byte. A process's first `NATIVE_EVENTS_FIRST` events are written by `canonicalJson`, the rest
 * by `handWrittenEventJson`.
 *
 * @example
 * ```ts
 * eventJson({ at: 1, callId: "c1", sessionId: "s", timeoutMs: 5, tool: "t", type: "started", writes: false });
 * // '{"at":1,"callId":"c1","sessionId":"s","timeoutMs":5,"tool":"t","type":"started","writes":false}'
 * ```
 */
export function eventJson(event: StoreEvent): string {
  if (eventsWritten < nativeEventsFirst) {
    eventsWritten += 1;
    return canonicalJson(event);
  }
  return handWrittenEventJson(event);
}

/**
 * `canonicalJson(event)`, byte for byte, written by hand for the four events of a call that
 * runs. Node 20's JSON.stringify costs about 100 ns before it writes a byte, so serialising those
 * four events took about 3 µs of every call's audit write; written as template strings with named
 * property reads, 1.5 µs (ADR 0018, "Third step"). Any event of another shape, with an inherited
 * or `toJSON` twist, or with keys in another order, goes to `canonicalJson`; nested values (the
 * decided arguments, any field that is not a string, number or boolean) are written by
 * `canonicalJson` too, which gives a member the same text as it has inside its parent. A
 * property test compares both on arbitrary events (`event-json.test.ts`).
 *
 * @example
 * ```ts
 * handWrittenEventJson({ at: 1, callId: "c1", sessionId: "s", timeoutMs: 5, tool: "t", type: "started", writes: false });
 * // '{"at":1,"callId":"c1","sessionId":"s","timeoutMs":5,"tool":"t","type":"started","writes":false}'
 * ```
 */
export function handWrittenEventJson(event: StoreEvent): string {
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
  // Each property is read once, in key order: a getter runs once, as under JSON.stringify.
  switch (event.type) {
    case "requested": {
      if (!sameKeys(keys, REQUESTED)) return canonicalJson(event);
      let t = members("{", HEAD.of(e.at, e.callId));
      t = withJson(t, '"principal":', repeatedJson(PRINCIPAL, e.principal));
      t = field(t, '"rawArguments":', e.rawArguments);
      t = field(t, '"rawBytes":', e.rawBytes);
      return `${members(t, REQUESTED_TAIL.of(e.sessionId, e.tool))}}`;
    }
    case "decided": {
      if (!sameKeys(keys, DECIDED)) return canonicalJson(event);
      let t = field("{", '"args":', e.args);
      t = members(t, HEAD.of(e.at, e.callId));
      const tail = DECIDED_TAIL.of(
        e.decision,
        e.explanation,
        e.layer,
        e.reason,
        e.rule,
        e.sessionId,
        e.tool,
      );
      return `${members(t, tail)}}`;
    }
    case "started": {
      if (!sameKeys(keys, STARTED)) return canonicalJson(event);
      const t = members("{", HEAD.of(e.at, e.callId));
      return `${members(t, STARTED_TAIL.of(e.sessionId, e.timeoutMs, e.tool, e.writes))}}`;
    }
    case "finished": {
      if (!sameKeys(keys, FINISHED)) return canonicalJson(event);
      let t = members("{", HEAD.of(e.at, e.callId));
      t = field(t, '"durationMs":', e.durationMs);
      t = withJson(t, '"message":', repeatedJson(MESSAGE, e.message));
      t = field(t, '"output":', e.output);
      t = field(t, '"outputBytes":', e.outputBytes);
      return `${members(t, FINISHED_TAIL.of(e.reason, e.sessionId, e.status, e.tool))}}`;
    }
    default:
      return canonicalJson(event);
  }
}

/** `text` (an object's JSON so far, from `"{"`) followed by members already written, if any. */
function members(text: string, written: string): string {
  if (written === "") return text;
  return text === "{" ? `{${written}` : `${text},${written}`;
}

/** No value: a memo that was never written matches nothing. */
const NONE: unknown = Symbol("none");

/** A string, number, boolean, null or undefined: its JSON follows from `===` alone. */
function isPrimitive(value: unknown): boolean {
  return value === null || (typeof value !== "object" && typeof value !== "function");
}

/**
 * The members of a run of keys, as last written, and the values they were written from. The
 * events of one call share their `at` and call id (and of one tool, most of the rest), so the
 * text is written once and reused while the values stay the same (`===`). Only primitives are
 * remembered: an object's text can change while it stays the same object.
 */
class MemberRun {
  private v0: unknown = NONE;
  private v1: unknown = NONE;
  private v2: unknown = NONE;
  private v3: unknown = NONE;
  private v4: unknown = NONE;
  private v5: unknown = NONE;
  private v6: unknown = NONE;
  private text = "";

  /**
   * `members` in key order: a `"key":` takes the next value given to `of`; a `{ fixed }` member
   * (the event's own `"type":…`) is written as it is.
   */
  constructor(private readonly members: readonly (string | { readonly fixed: string })[]) {}

  /** The members' text (without braces, "" when every value is left out) for these values. */
  of(
    a: unknown,
    b: unknown,
    c: unknown = undefined,
    d: unknown = undefined,
    e: unknown = undefined,
    f: unknown = undefined,
    g: unknown = undefined,
  ): string {
    if (
      a === this.v0 &&
      b === this.v1 &&
      c === this.v2 &&
      d === this.v3 &&
      e === this.v4 &&
      f === this.v5 &&
      g === this.v6
    ) {
      return this.text;
    }
    const values = [a, b, c, d, e, f, g];
    let t = "{";
    let next = 0;
    for (const member of this.members) {
      if (typeof member === "string") {
        t = field(t, member, values[next]);
        next += 1;
      } else {
        t = members(t, member.fixed);
      }
    }
    const text = t === "{" ? "" : t.slice(1);
    // Remembered only when every value is a primitive: then `===` values give the same text.
    if (values.every(isPrimitive)) {
      this.v0 = a;
      this.v1 = b;
      this.v2 = c;
      this.v3 = d;
      this.v4 = e;
      this.v5 = f;
      this.v6 = g;
      this.text = text;
    }
    return text;
  }
}

const HEAD = new MemberRun(['"at":', '"callId":']);
const REQUESTED_TAIL = new MemberRun(['"sessionId":', '"tool":', { fixed: '"type":"requested"' }]);
const DECIDED_TAIL = new MemberRun([
  '"decision":',
  '"explanation":',
  '"layer":',
  '"reason":',
  '"rule":',
  '"sessionId":',
  '"tool":',
  { fixed: '"type":"decided"' },
]);
const STARTED_TAIL = new MemberRun([
  '"sessionId":',
  '"timeoutMs":',
  '"tool":',
  { fixed: '"type":"started"' },
  '"writes":',
]);
const FINISHED_TAIL = new MemberRun([
  '"reason":',
  '"sessionId":',
  '"status":',
  '"tool":',
  { fixed: '"type":"finished"' },
]);

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
const PRINCIPAL: Repeated = { text: "", json: '""' };
const MESSAGE: Repeated = { text: "", json: '""' };

/** A call's principal, and a tool's message, are the same strings call after call: quoted once. */
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
