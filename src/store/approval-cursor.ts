import { DocketError } from "../errors/docket-error.js";

/** Where a page of approvals (newest first) stopped: the last one's creation time and id. */
export interface ApprovalPosition {
  readonly createdAt: number;
  readonly id: string;
}

/**
 * The opaque cursor of an approvals page: base64url of `createdAt:id`. A cursor is only a
 * position, not a snapshot: approvals created after the first page do not shift later pages.
 *
 * @example
 * ```ts
 * const cursor = encodeApprovalCursor({ createdAt: 1700000000000, id: "apr_1" });
 * decodeApprovalCursor(cursor); // { createdAt: 1700000000000, id: "apr_1" }
 * ```
 */
export function encodeApprovalCursor(position: ApprovalPosition): string {
  return Buffer.from(`${position.createdAt}:${position.id}`, "utf8").toString("base64url");
}

/**
 * Read a cursor from `encodeApprovalCursor`; anything else is `invalid_filter` (a client may send
 * any text).
 *
 * @example
 * ```ts
 * decodeApprovalCursor("bm9wZQ"); // throws DocketError("invalid_filter")
 * ```
 */
export function decodeApprovalCursor(cursor: string): ApprovalPosition {
  const text = /^[A-Za-z0-9_-]{1,400}$/.test(cursor)
    ? Buffer.from(cursor, "base64url").toString("utf8")
    : "";
  const match = /^(\d{1,16}):(.+)$/s.exec(text);
  const createdAt = Number(match?.[1]);
  if (!match?.[2] || !Number.isSafeInteger(createdAt)) {
    throw new DocketError("invalid_filter", "The cursor is not one this store gave.");
  }
  return { createdAt, id: match[2] };
}

/**
 * The page size of `pageApprovals`: default 100, at most 1,000.
 *
 * @example
 * ```ts
 * pageSize(undefined); // 100
 * ```
 */
export function pageSize(limit: number | undefined): number {
  if (limit === undefined) return 100;
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    throw new DocketError("invalid_filter", "A page limit must be an integer from 1 to 1000.");
  }
  return limit;
}
