import { parseJson } from "../shared/parse-json.js";

// A hook payload over the size docket reads whole: its top-level members are scanned as the bytes
// go by, and only the small ones kept, so that an outside result too large to read is still
// recorded, as unread, and still taints its session (docs/adr/0104).

/** The largest member kept of an oversized payload, in bytes of JSON text. */
const MAX_MEMBER_BYTES = 1024 * 1024;
/** The most kept of an oversized payload's members over `SMALL_MEMBER_BYTES`, in all. */
const MAX_KEPT_BYTES = 2 * 1024 * 1024;
/** A member at most this long is always kept (an event's name, a session or call id). */
const SMALL_MEMBER_BYTES = 64 * 1024;
/**
 * The events that report a call the host already ran, of every host (test/hook checks the list
 * against the hosts' tables): only their result may be unread, and their input too (the call is
 * found by its id), since what ran ran; before a call runs, all of it is read or it is denied.
 */
export const AFTER_EVENTS: ReadonlySet<string> = new Set([
  "PostToolUse",
  "PostToolUseFailure",
  "AfterTool",
  "tool.execute.after",
]);

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

type Phase = "start" | "key" | "colon" | "value" | "next" | "end" | "bad";

/**
 * Reads one JSON object's top-level members from its bytes as they come, keeping each member's
 * text when it is at most 1 MiB (2 MiB kept in all) and only the name of the others. JSON's
 * structure is ASCII and UTF-8 never repeats an ASCII byte inside a character, so bytes are
 * scanned without decoding them.
 *
 * @example
 * ```ts
 * const scan = new TopLevelScan();
 * scan.push(Buffer.from('{"tool_name":"WebFetch","tool_response":"…"}'));
 * scan.finish(); // { kept: { tool_name: "WebFetch", tool_response: "…" }, skipped: [] }
 * ```
 */
export class TopLevelScan {
  private phase: Phase = "start";
  private key: number[] = [];
  private keyEscape = false;
  private value: Buffer[] = [];
  private valueBytes = 0;
  private keepingValue = true;
  private depth = 0;
  private inString = false;
  private escape = false;
  private started = false;
  private keptBytes = 0;
  private readonly kept = new Map<string, Buffer>();
  private readonly skipped: string[] = [];
  private readonly names = new Set<string>();

  /** True once the bytes cannot be one JSON object: nothing more need be read. */
  get failed(): boolean {
    return this.phase === "bad";
  }

  /** Scan the next bytes of the payload. */
  push(chunk: Buffer): void {
    let from = 0;
    for (let i = 0; i < chunk.length && this.phase !== "bad"; i += 1) {
      const byte = chunk[i] as number;
      switch (this.phase) {
        case "start":
          if (byte === 0x7b) this.phase = "next";
          else if (!isSpace(byte)) this.phase = "bad";
          break;
        case "next":
          if (byte === QUOTE) {
            this.phase = "key";
            this.key = [];
          } else if (byte === 0x7d) this.phase = "end";
          else if (!isSpace(byte) && byte !== 0x2c) this.phase = "bad";
          break;
        case "key":
          if (this.keyEscape) this.keyEscape = false;
          else if (byte === BACKSLASH) this.keyEscape = true;
          else if (byte === QUOTE) {
            this.phase = "colon";
            continue;
          }
          this.key.push(byte);
          if (this.key.length > 1024) this.phase = "bad";
          break;
        case "colon":
          if (byte === 0x3a) {
            this.phase = "value";
            this.startValue();
            from = i + 1;
          } else if (!isSpace(byte)) this.phase = "bad";
          break;
        case "value":
          if (this.valueEnds(byte)) {
            this.take(chunk.subarray(from, i));
            this.phase = byte === 0x7d ? "end" : "next";
            this.endValue();
          }
          break;
        case "end":
          if (!isSpace(byte)) this.phase = "bad";
          break;
      }
    }
    if (this.phase === "value") this.take(chunk.subarray(from));
  }

  /**
   * The members kept, parsed, and the names of those too large to keep; undefined when the bytes
   * were not one JSON object or a kept member does not parse.
   */
  finish(): { kept: Record<string, unknown>; skipped: string[] } | undefined {
    if (this.phase !== "end") return undefined;
    const kept: Record<string, unknown> = {};
    try {
      for (const [name, text] of this.kept) {
        // Defined, not assigned: a member named __proto__ is a member like any other.
        Object.defineProperty(kept, name, {
          value: parseJson(text.toString("utf8")),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
    } catch {
      return undefined;
    }
    return { kept, skipped: [...this.skipped] };
  }

  private startValue(): void {
    this.value = [];
    this.valueBytes = 0;
    this.keepingValue = true;
    this.depth = 0;
    this.inString = false;
    this.escape = false;
    this.started = false;
  }

  /** Whether `byte` is the first after the member's value (a comma or the object's end). */
  private valueEnds(byte: number): boolean {
    if (this.inString) {
      if (this.escape) this.escape = false;
      else if (byte === BACKSLASH) this.escape = true;
      else if (byte === QUOTE) this.inString = false;
      return false;
    }
    if (byte === QUOTE) this.inString = true;
    else if (byte === 0x7b || byte === 0x5b) this.depth += 1;
    else if (byte === 0x7d || byte === 0x5d) {
      if (this.depth === 0) return this.started;
      this.depth -= 1;
    } else if (byte === 0x2c && this.depth === 0) return this.started;
    if (!isSpace(byte)) this.started = true;
    return false;
  }

  private take(bytes: Buffer): void {
    if (!this.keepingValue || bytes.length === 0) return;
    this.valueBytes += bytes.length;
    if (
      this.valueBytes > MAX_MEMBER_BYTES ||
      (this.valueBytes > SMALL_MEMBER_BYTES && this.keptBytes + this.valueBytes > MAX_KEPT_BYTES)
    ) {
      this.keepingValue = false;
      this.value = [];
      return;
    }
    // Copied: the chunk is the stream's, and what is not kept must not hold it in memory.
    this.value.push(Buffer.from(bytes));
  }

  private endValue(): void {
    let name: string;
    try {
      name = parseJson(`"${Buffer.from(this.key).toString("utf8")}"`) as string;
    } catch {
      // A key that is no JSON string: the payload is no JSON object.
      this.phase = "bad";
      return;
    }
    // A member named twice: JSON.parse would keep the last, a host never writes one; no guess.
    if (this.names.has(name)) {
      this.phase = "bad";
      return;
    }
    this.names.add(name);
    if (this.keepingValue) {
      const text = Buffer.concat(this.value);
      // Small members do not count against what is kept: those that say what the call is.
      if (text.length > SMALL_MEMBER_BYTES) this.keptBytes += text.length;
      this.kept.set(name, text);
    } else {
      this.skipped.push(name);
    }
    this.value = [];
  }
}

/**
 * The payload docket reads in place of one over its size, or undefined when it cannot stand for
 * it: the bytes were no JSON object, named a member twice, or left out of what was kept anything
 * but an after-event's result (`tool_response`, replaced by a line saying it was not read, so the
 * call is recorded as unread and an outside tool's result still taints its session) and input
 * (`{}`: the call is found by its id). Before a call runs, everything it says is read, or the
 * call is denied as unreadable.
 *
 * @example
 * ```ts
 * const scan = new TopLevelScan();
 * declare const bytes: Buffer; // a PostToolUse payload of 9 MiB
 * scan.push(bytes);
 * unreadPayload(scan, bytes.length); // '{"hook_event_name":"PostToolUse",…,"tool_response":"[docket: …]"}'
 * ```
 */
export function unreadPayload(scan: TopLevelScan, size: number): string | undefined {
  const read = scan.finish();
  if (read === undefined) return undefined;
  const event = read.kept.hook_event_name;
  const after = typeof event === "string" && AFTER_EVENTS.has(event);
  const payload: Record<string, unknown> = { ...read.kept };
  for (const name of read.skipped) {
    if (after && name === "tool_response") {
      payload[name] =
        `[docket: the host's result was part of a payload of ${size} bytes, more than docket reads; its content was not recorded]`;
    } else if (after && name === "tool_input") {
      payload[name] = {};
    } else {
      return undefined;
    }
  }
  return JSON.stringify(payload);
}
