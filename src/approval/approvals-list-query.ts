import type { ApprovalPageFilter, ApprovalStatus } from "../store/approval-record.js";

const STATUSES = new Set(["pending", "approved", "denied", "expired"]);

/**
 * `GET /approvals`'s query: the status (default pending, or all), the page size, the cursor.
 *
 * @example
 * ```ts
 * readListQuery(new URLSearchParams("status=all&limit=10")); // { status: "ok", filter: { limit: 10 } }
 * ```
 */
export function readListQuery(
  params: URLSearchParams,
): { status: "ok"; filter: ApprovalPageFilter } | { status: "invalid"; message: string } {
  const status = params.get("status") ?? "pending";
  if (status !== "all" && !STATUSES.has(status)) {
    return {
      status: "invalid",
      message: "status is one of pending, approved, denied, expired, all.",
    };
  }
  const limitText = params.get("limit");
  const limit = limitText === null ? undefined : Number(limitText);
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= 1000)) {
    return { status: "invalid", message: "limit is an integer from 1 to 1000." };
  }
  const cursor = params.get("cursor") ?? undefined;
  return {
    status: "ok",
    filter: {
      ...(status === "all" ? {} : { status: status as ApprovalStatus }),
      ...(limit === undefined ? {} : { limit }),
      ...(cursor === undefined ? {} : { cursor }),
    },
  };
}
