import type { Approval } from "../store/approval-record.js";
import type { ApprovalAnswer, ApprovalRequest } from "./approval.js";

/**
 * The answer a decided request gives. A person's decision went through `decideApproval`, which
 * wrote its `approved` or `approval_denied` event when it was made, so the answer says it is
 * `recorded` and the checkpoint does not write the same event a second time. What the approver
 * concludes on its own (changed arguments, expiry) is not recorded yet.
 *
 * @example
 * ```ts
 * declare const approval: import("../store/approval-record.js").Approval;
 * declare const request: import("./approval.js").ApprovalRequest;
 * const answer = answerFor(approval, request); // approval: the stored request, decided
 * ```
 */
export function answerFor(approval: Approval, request: ApprovalRequest): ApprovalAnswer {
  switch (approval.status) {
    case "approved":
      if (approval.argsHash !== request.argumentsHash) {
        return {
          decision: "deny",
          by: approval.decidedBy ?? "docket",
          reason: "the arguments changed after they were approved",
        };
      }
      return {
        decision: "approve",
        by: approval.decidedBy ?? "unknown",
        scope: approval.scope,
        ...(approval.decisionReason ? { reason: approval.decisionReason } : {}),
        recorded: true,
      };
    case "denied":
      return {
        decision: "deny",
        by: approval.decidedBy ?? "unknown",
        reason: approval.decisionReason ?? "denied",
        recorded: true,
      };
    case "expired":
      return {
        decision: "deny",
        by: "expiry",
        reason: `nobody decided request ${approval.id} before it expired`,
      };
    case "pending":
      return { decision: "pending", approvalId: approval.id };
  }
}
