import { parseJson } from "../../shared/parse-json.js";
import type { ChainRow } from "../audit-chain.js";
import { linkHash } from "../audit-chain.js";
import type { AuditRecord } from "../audit-record.js";
import { splitJoinedLink } from "../joined-link.js";
import type { StoreEvent, StoreEventType } from "../store-event.js";
import type { Row } from "../store-rows.js";
import { toChainRow } from "../store-rows.js";

/**
 * The events an `audit_events` row holds, as the verifier reads them: one for a row of one
 * event, every event of a read call for a packed row (`TrailRows`). A packed row is one link of
 * the chain (ADR 0077): each of its events carries the row's `prev_hash` and `hash`, the seq of
 * its first (`packedFrom`) and last (`linkEnd`) event, and the verifier hashes their texts
 * together at the last one. A row an older docket packed (its events joined by newlines, ADR
 * 0015) is a run of links: the hashes between its events are computed from the one before,
 * starting at the row's `prev_hash`, and its last event carries the row's stored `hash`. In
 * both, the last event carries the row's `type` and `at` columns, and an edit of any event or
 * column breaks the row's last link (named as its first event) and everything after.
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
  wanted?: (link: Pick<ChainRow, "seq" | "type" | "at">) => boolean,
): ChainRow[] {
  const text = String(row.event);
  const joined = splitJoinedLink(text);
  if (joined === undefined && !text.includes("\n")) return [toChainRow(row)];
  const parts = joined ?? text.split("\n");
  const last = toChainRow(row);
  const first = last.seq - parts.length + 1;
  const columns = parts.map((part, i) =>
    i === parts.length - 1 ? { type: last.type, at: last.at } : eventColumns(part),
  );
  if (wanted && !columns.some((column, i) => wanted({ seq: first + i, ...column }))) return [];
  if (joined !== undefined) {
    return parts.map((event, i) => ({
      ...last,
      seq: first + i,
      ...(columns[i] as { type: string; at: number }),
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
    const { type, at } = columns[i] as { type: string; at: number };
    links.push({ ...last, seq, type, at, event, prevHash, hash, packedFrom: first });
    prevHash = hash;
  }
  links.push({ ...last, event: parts[parts.length - 1] as string, prevHash, packedFrom: first });
  return links;
}

/** The type and time an event says it has; nothing when it is not readable (the verifier says so). */
function eventColumns(text: string): { type: string; at: number } {
  try {
    const event = parseJson(text) as { type?: unknown; at?: unknown };
    return { type: String(event.type), at: Number(event.at) };
  } catch {
    return { type: "", at: Number.NaN };
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
