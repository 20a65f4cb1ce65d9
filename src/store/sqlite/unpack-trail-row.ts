import { parseJson } from "../../shared/parse-json.js";
import type { ChainRow } from "../audit-chain.js";
import { linkHash } from "../audit-chain.js";
import type { AuditRecord } from "../audit-record.js";
import { splitJoinedLink } from "../joined-link.js";
import { storedText } from "../pending-event.js";
import type { StoreEvent, StoreEventType } from "../store-event.js";
import type { Row } from "../store-rows.js";
import { toChainRow } from "../store-rows.js";

/**
 * The events an `audit_events` row holds, as the verifier reads them: one for a row of one event,
 * every event of the calls of one commit for a packed row (`TrailRows`). A packed row is one link
 * of the chain (ADRs 0077, 0086, 0101): each of its events carries the row's `prev_hash` and
 * `hash`, the seq of its first (`packedFrom`) and last (`linkEnd`) event, and the verifier hashes
 * their texts together at the last one. The row's columns are its last event's; each other event's
 * type, time, call id and tool are read from its own text (which the link's hash covers), since one
 * row may hold several calls. A row an older docket packed (its events joined by newlines, ADR
 * 0015) is a run of links: the hashes between its events are computed from the one before, starting
 * at the row's `prev_hash`, and its last event carries the row's stored `hash`. In both, the last
 * event carries the row's `type` and `at` columns, and an edit of any event or column breaks the
 * row's last link (named as its first event) and everything after.
 *
 * @example
 * ```ts
 * declare const row: import("../store-rows.js").Row; // an audit_trail row
 * declare const verifier: import("../audit-chain.js").ChainVerifier;
 * for (const link of unpackTrailRow(row)) verifier.row(link);
 * ```
 */
export function unpackTrailRow(
  row: Row,
  /** When given, a packed row none of whose events it wants is skipped before any hashing. */
  wanted?: (link: LinkColumns) => boolean,
): ChainRow[] {
  const text = String(row.event);
  const joined = splitJoinedLink(text);
  if (joined === undefined && !text.includes("\n")) return [toChainRow(row)];
  const parts = joined ?? text.split("\n");
  const last = toChainRow(row);
  const first = last.seq - parts.length + 1;
  const columns = parts.map((part, i) =>
    i === parts.length - 1
      ? { type: last.type, at: last.at, callId: last.callId, tool: last.tool }
      : eventColumns(part),
  );
  if (wanted && !columns.some((column, i) => wanted({ seq: first + i, ...column }))) return [];
  if (joined !== undefined) {
    return parts.map((event, i) => ({
      ...last,
      seq: first + i,
      ...(columns[i] as EventColumns),
      event,
      packedFrom: first,
      linkEnd: last.seq,
    }));
  }
  const links: ChainRow[] = [];
  let prevHash = last.prevHash;
  for (let i = 0; i < parts.length - 1; i += 1) {
    const event = parts[i] as string;
    const seq = first + i;
    const hash = linkHash(seq, last.sessionId, prevHash, event);
    links.push({
      ...last,
      seq,
      ...(columns[i] as EventColumns),
      event,
      prevHash,
      hash,
      packedFrom: first,
    });
    prevHash = hash;
  }
  links.push({ ...last, event: parts[parts.length - 1] as string, prevHash, packedFrom: first });
  return links;
}

/**
 * What a packed row's columns would say of one of its events; what filters look at.
 *
 * @example
 * ```ts
 * const wanted = (link: LinkColumns) => link.callId === "call_1" && link.type === "finished";
 * ```
 */
export type LinkColumns = Pick<ChainRow, "seq" | "type" | "at" | "callId" | "tool">;

type EventColumns = Omit<LinkColumns, "seq">;

/**
 * The columns an event's text says it has, as a row of its own would store them; nothing
 * readable when it is not (the verifier says so: the link's hash covers the text).
 */
function eventColumns(text: string): EventColumns {
  try {
    const event = parseJson(text) as Record<string, unknown>;
    const column = (value: unknown) =>
      typeof value === "string" ? storedText(value) : String(value);
    return {
      type: String(event.type),
      at: Number(event.at),
      callId: column(event.callId),
      tool: column(event.tool),
    };
  } catch {
    return { type: "", at: Number.NaN, callId: "", tool: "" };
  }
}

/**
 * A stored event as `listEvents` gives it.
 *
 * @example
 * ```ts
 * declare const row: import("../store-rows.js").Row;
 * unpackTrailRow(row).map(auditRecordOf);
 * ```
 */
export function auditRecordOf(link: ChainRow): AuditRecord {
  return {
    sessionId: link.sessionId,
    seq: link.seq,
    callId: link.callId,
    type: link.type as StoreEventType,
    tool: link.tool,
    at: link.at,
    event: parseJson(link.event) as StoreEvent,
    prevHash: link.prevHash,
    hash: link.hash,
  };
}
