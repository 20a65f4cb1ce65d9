import { sha256Hex } from "../shared/canonical-json.js";
import { parseJson } from "../shared/parse-json.js";
import type { ChainVerification } from "./audit-record.js";
import { joinedLinkText } from "./joined-link.js";
import { storedText } from "./pending-event.js";

/**
 * The `prevHash` of a session's first event.
 *
 * @example
 * ```ts
 * declare const store: import("./store.js").Store;
 * const sessionId = "ses_1";
 * (await store.listEvents({ sessionId }))[0]?.prevHash === GENESIS_HASH; // true
 * ```
 */
export const GENESIS_HASH = "0".repeat(64);

/**
 * The hash of one link: SHA-256 over the canonical JSON of `{ seq, sessionId, prevHash, event }`,
 * given the event's canonical JSON text. Built by concatenation, which gives exactly the text
 * `canonicalJson` would (keys sorted: event, prevHash, seq, sessionId) without serialising the
 * event a second time inside the write transaction.
 *
 * @example
 * ```ts
 * import { canonicalJson, hashCanonical } from "../shared/canonical-json.js";
 * declare const event: import("./store-event.js").StoreEvent;
 * linkHash(1, "ses_1", GENESIS_HASH, canonicalJson(event)) ===
 *   hashCanonical({ seq: 1, sessionId: "ses_1", prevHash: GENESIS_HASH, event }); // true
 * ```
 */
export function linkHash(
  seq: number,
  sessionId: string,
  prevHash: string,
  eventJson: string,
): string {
  // The previous link is usually the hash just computed (a digest: hex, nothing to escape).
  const prev =
    prevHash === lastHash || HEX_HASH.test(prevHash) ? `"${prevHash}"` : JSON.stringify(prevHash);
  const text = `{"event":${eventJson},"prevHash":${prev},"seq":${seq},"sessionId":${quoted(sessionId)}}`;
  lastHash = sha256Hex(text);
  return lastHash;
}

/** A hash as docket writes it: its JSON string is itself in quotes, with nothing to escape. */
const HEX_HASH = /^[0-9a-f]{64}$/;
let lastHash = GENESIS_HASH;

// Appends come in runs of one session: quote its id once per run, not once per event.
let lastSession = "";
let lastQuoted = '""';
function quoted(sessionId: string): string {
  if (sessionId !== lastSession) {
    lastQuoted = JSON.stringify(sessionId);
    lastSession = sessionId;
  }
  return lastQuoted;
}

/** A stored event as the verifier reads it. */
export interface ChainRow {
  readonly sessionId: string;
  readonly seq: number;
  readonly callId: string;
  readonly type: string;
  readonly tool: string;
  readonly at: number;
  /** The event's JSON text as stored. */
  readonly event: string;
  readonly prevHash: string;
  readonly hash: string;
  /**
   * The first seq of the row that holds this event, when the row holds several (a SQLite row of
   * a read call's events): only that row's last hash is stored, so an edit is named by row.
   */
  readonly packedFrom?: number;
  /**
   * The seq of the last event of the link this event belongs to, when one link holds several
   * events (a read call's, ADR 0077). Every event of such a link carries the link's `prevHash`
   * and `hash`, and `packedFrom` is its first seq; the hash covers them all (`joinedLinkText`).
   */
  readonly linkEnd?: number;
}

/** The last link of a chain, kept beside it so that a truncated chain is noticed. */
export interface ChainHead {
  readonly seq: number;
  readonly hash: string;
}

type Problem = {
  readonly ok: false;
  readonly sessionId: string;
  readonly seq: number;
  readonly problem: string;
};

/**
 * Checks chains one row at a time, rows ordered by session then seq, so that a million events
 * are verified without holding them. Feed every row to `row`, then call `finish`; the first
 * problem found is the answer.
 *
 * @example
 * ```ts
 * declare const heads: Map<string, ChainHead>; // each session's recorded head
 * declare const rows: readonly ChainRow[]; // ordered by session, then seq
 * const verifier = new ChainVerifier((id) => heads.get(id));
 * for (const row of rows) if (verifier.row(row)) break;
 * const result = verifier.finish(heads.keys());
 * ```
 */
export class ChainVerifier {
  private current: string | undefined;
  private expected = 1;
  private prevHash = GENESIS_HASH;
  private checked = 0;
  private readonly seen = new Set<string>();
  private problem: Problem | undefined;
  /** The link being read when it holds several events: checked at its last one. */
  private link: OpenLink | undefined;

  constructor(private readonly headOf: (sessionId: string) => ChainHead | undefined) {}

  /** Check one row; returns true once a problem was found (stop feeding). */
  row(row: ChainRow): boolean {
    if (this.problem) return true;
    if (row.sessionId !== this.current) {
      if (this.current !== undefined && this.closeChain()) return true;
      this.current = row.sessionId;
      this.seen.add(row.sessionId);
      this.expected = 1;
      this.prevHash = GENESIS_HASH;
    }
    const found = checkRow(row, this.expected, this.prevHash) ?? this.checkLink(row);
    if (found) {
      this.problem = {
        ok: false,
        sessionId: row.sessionId,
        seq: found.seq,
        problem: found.problem,
      };
      return true;
    }
    this.checked += 1;
    this.expected = row.seq + 1;
    // Inside a link of several events the chain moves on at its last one.
    if (this.link === undefined) this.prevHash = row.hash;
    return false;
  }

  /**
   * An event's place in a link of several: the link's events come in a run, agree on where it
   * ends and on its hash, and its hash is checked over all of their texts at its last one.
   */
  private checkLink(row: ChainRow): { seq: number; problem: string } | undefined {
    const open = this.link;
    if (row.linkEnd === undefined) {
      if (open === undefined) return checkHash(row) ?? checkColumns(row);
      this.link = undefined;
      return altered(open.from, open.end, "it ends before its last event");
    }
    const link = open ?? { from: row.seq, end: row.linkEnd, hash: row.hash, events: [] };
    if (row.linkEnd !== link.end || row.hash !== link.hash || link.end < row.seq) {
      this.link = undefined;
      return altered(link.from, Math.max(link.end, row.seq), "its events disagree on the link");
    }
    link.events.push(row.event);
    this.link = link;
    if (row.seq === link.end) {
      this.link = undefined;
      const text = joinedLinkText(link.events);
      if (linkHash(link.end, row.sessionId, row.prevHash, text) !== link.hash) {
        return altered(link.from, link.end, "its hash does not match their content");
      }
    }
    return checkColumns(row);
  }

  /** The verdict, once every row was fed. `heads` lists every session that has a chain head. */
  finish(heads: Iterable<string>): ChainVerification {
    if (this.problem) return this.problem;
    if (this.current !== undefined && this.closeChain()) return this.problem ?? fail("", 0, "");
    for (const sessionId of heads) {
      if (!this.seen.has(sessionId)) {
        const head = this.headOf(sessionId);
        return fail(sessionId, 1, `all ${head?.seq ?? 0} events of this chain are missing`);
      }
    }
    return { ok: true, checked: this.checked, sessions: this.seen.size };
  }

  private closeChain(): boolean {
    const sessionId = this.current ?? "";
    const last = this.expected - 1;
    const head = this.headOf(sessionId);
    const open = this.link;
    this.link = undefined;
    if (open) {
      const found = altered(open.from, open.end, "its last event is missing");
      this.problem = fail(sessionId, found.seq, found.problem);
    } else if (!head) {
      this.problem = fail(sessionId, last, "the chain has no head record (was it inserted?)");
    } else if (head.seq !== last) {
      this.problem =
        head.seq > last
          ? fail(
              sessionId,
              last + 1,
              `events ${last + 1} to ${head.seq} are missing (the chain ends early)`,
            )
          : fail(sessionId, head.seq + 1, `events after ${head.seq} were added outside the store`);
    } else if (head.hash !== this.prevHash) {
      this.problem = fail(sessionId, last, `event ${last} does not match the chain head`);
    }
    return this.problem !== undefined;
  }
}

function fail(sessionId: string, seq: number, problem: string): Problem {
  return { ok: false, sessionId, seq, problem };
}

function checkRow(
  row: ChainRow,
  expected: number,
  prevHash: string,
): { seq: number; problem: string } | undefined {
  if (row.seq !== expected) {
    // The first event of a link of several that follows the chain's last link: its row is
    // where the gap is, so events were cut from its text (its seqs count back from its last).
    if (
      row.seq > expected &&
      row.linkEnd !== undefined &&
      row.packedFrom === row.seq &&
      row.prevHash === prevHash
    ) {
      return altered(expected, row.linkEnd, "events are missing from it");
    }
    return row.seq > expected
      ? {
          seq: expected,
          problem:
            row.seq === expected + 1
              ? `event ${expected} is missing`
              : `events ${expected} to ${row.seq - 1} are missing`,
        }
      : { seq: row.seq, problem: `event ${row.seq} is out of order` };
  }
  if (row.prevHash !== prevHash) {
    return {
      seq: row.seq,
      problem:
        row.seq === 1
          ? "the first event does not start the chain (prev_hash is not the genesis hash)"
          : `event ${row.seq} does not link to event ${row.seq - 1} (prev_hash differs: an event was inserted, removed or reordered)`,
    };
  }
  return undefined;
}

/** The hash of a link that holds one event (or one of a legacy packed row's events). */
function checkHash(row: ChainRow): { seq: number; problem: string } | undefined {
  if (linkHash(row.seq, row.sessionId, row.prevHash, row.event) === row.hash) return undefined;
  if (row.packedFrom !== undefined && row.packedFrom < row.seq) {
    return {
      seq: row.packedFrom,
      problem: `events ${row.packedFrom} to ${row.seq} were altered (they are stored in one row, and its hash does not match their content)`,
    };
  }
  return {
    seq: row.seq,
    problem: `event ${row.seq} was altered (its hash does not match its content)`,
  };
}

function checkColumns(row: ChainRow): { seq: number; problem: string } | undefined {
  const column = disagreeingColumn(row);
  if (column) {
    return {
      seq: row.seq,
      problem: `event ${row.seq} was altered (its ${column} column disagrees with the recorded event)`,
    };
  }
  return undefined;
}

/** The events of one link, stored and hashed together: named as a range. */
function altered(from: number, end: number, why: string): { seq: number; problem: string } {
  return {
    seq: from,
    problem: `events ${from} to ${end} were altered (they are one link of the chain, and ${why})`,
  };
}

interface OpenLink {
  readonly from: number;
  readonly end: number;
  readonly hash: string;
  readonly events: string[];
}

function disagreeingColumn(row: ChainRow): string | undefined {
  let event: Record<string, unknown>;
  try {
    event = parseJson(row.event) as Record<string, unknown>;
  } catch {
    return "event";
  }
  // `null`, a number or an array parse too, and are no event.
  if (typeof event !== "object" || event === null || Array.isArray(event)) return "event";
  const column = (value: unknown) => (typeof value === "string" ? storedText(value) : value);
  if (event.type !== row.type) return "type";
  if (column(event.callId) !== row.callId) return "call_id";
  if (column(event.tool) !== row.tool) return "tool";
  if (event.at !== row.at) return "at";
  const sessionId = event.sessionId;
  if (sessionId !== undefined && column(sessionId) !== row.sessionId) return "session_id";
  return undefined;
}
