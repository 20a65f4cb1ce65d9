import { type ApproverDirectory, mayDecide } from "../approval/approver-directory.js";
import type { Approval } from "../store/approval-record.js";
import type { DecisionRight } from "./approval-card.js";

/**
 * Which decisions `name` may make on a request: the rules `decideApproval` enforces (never the
 * requester, only the allowed principals and roles), so the page offers no button the server
 * would refuse. The server still checks again when the form arrives.
 *
 * @example
 * ```ts
 * declare const directory: import("../approval/approver-directory.js").ApproverDirectory;
 * declare const approval: import("../store/approval-record.js").Approval;
 * decisionRight(directory, "bob", approval); // { status: "may_decide", session: true }
 * ```
 */
export function decisionRight(
  directory: ApproverDirectory,
  name: string,
  approval: Approval,
): DecisionRight {
  if (name === approval.requestedBy) {
    return { status: "may_not", why: `${name} requested this call and cannot decide it.` };
  }
  const allowed = approval.approvers?.length ? approval.approvers : undefined;
  if (allowed && !mayDecide(directory, name, allowed)) {
    return { status: "may_not", why: `it needs ${allowed.join(" or ")}.` };
  }
  return { status: "may_decide", session: approval.grantKey !== undefined };
}
