import { createHash } from "node:crypto";
import type { Approval } from "../store/approval-record.js";
import type { ApprovalStore } from "../store/approval-store.js";
import type { AuditTrail } from "../store/audit-trail.js";
import type { StoreEvent } from "../store/store-event.js";
import {
  type ApproverDirectory,
  type Authentication,
  authenticate,
  mayDecide,
} from "./approver-directory.js";

/**
 * The id of the approval for one call in one session. Deterministic, so that asking again (after a
 * restart, on resume) finds the same request instead of opening a second one.
 *
 * @example
 * ```ts
 * approvalIdFor("ses_1", "call_7"); // "apr_3f2a…"
 * ```
 */
export function approvalIdFor(sessionId: string | undefined, callId: string): string {
  return `apr_${createHash("sha256")
    .update(`${sessionId ?? ""}\0${callId}`)
    .digest("hex")
    .slice(0, 24)}`;
}

/** A decision someone is trying to make. */
export interface DecisionAttempt {
  readonly approvalId: string;
  readonly decision: "approve" | "deny";
  readonly reason?: string;
  readonly scope?: "once" | "session";
  /**
   * Who claims to decide: a name (`--as`), a bearer token, or both; or `signedIn`, the name of an
   * approver whose token a channel checked itself (the web console, at sign-in). `signedIn` is
   * accepted only for a configured approver who has a token.
   */
  readonly claim: { readonly name?: string; readonly token?: string; readonly signedIn?: string };
  /**
   * Whether a person at an interactive terminal makes this attempt. `false` refuses a locally
   * asserted decision (a name without a token): a script, a pipe or an agent's shell must prove
   * who it is with a token. The CLI sets it from `isTTY`; undefined leaves it to the caller.
   */
  readonly terminal?: boolean;
}

/** Why a name without a token is refused outside a terminal; names the alternative. */
export const LOCAL_NEEDS_TERMINAL =
  "a decision without a token (--as NAME alone) is accepted only from an interactive terminal (stdin and stdout a TTY); from a script or a pipe, give the approver's token in DOCKET_TOKEN, or decide through the approvals API with a bearer token";

/** What came of an attempt; each maps to an HTTP status in the API. */
export type DecisionOutcome =
  | { readonly status: "decided"; readonly approval: Approval }
  | { readonly status: "unauthenticated"; readonly message: string }
  | { readonly status: "forbidden"; readonly message: string }
  | { readonly status: "not_found"; readonly message: string }
  | { readonly status: "conflict"; readonly message: string; readonly approval: Approval }
  | { readonly status: "invalid"; readonly message: string };

function signedInAs(
  directory: ApproverDirectory,
  name: string | undefined,
): Authentication | undefined {
  if (name === undefined) return undefined;
  return directory.entries.get(name)?.tokenSha256
    ? { status: "authenticated", name, locallyAsserted: false }
    : { status: "rejected", message: `${name} is not an approver with a token.` };
}

/**
 * Decide an approval request on behalf of an authenticated approver. Fails closed at every step:
 * unknown or anonymous deciders, the requesting principal itself, approvers outside the allowed
 * set, expired requests and second decisions are refused. Refused attempts are audited.
 *
 * @example
 * ```ts
 * declare const store: import("../store/store.js").Store;
 * declare const directory: import("./approver-directory.js").ApproverDirectory;
 * const approvalId = approvalIdFor("ses_1", "call_1");
 * const outcome = await decideApproval(store, directory, { approvalId, decision: "approve", claim: { name: "alice" } });
 * if (outcome.status === "conflict") console.log("someone decided first");
 * ```
 */
export async function decideApproval(
  store: ApprovalStore & AuditTrail,
  directory: ApproverDirectory,
  attempt: DecisionAttempt,
  now: () => number = Date.now,
): Promise<DecisionOutcome> {
  const approval = await store.getApproval(attempt.approvalId);
  if (!approval)
    return { status: "not_found", message: `There is no approval request ${attempt.approvalId}.` };
  const who =
    signedInAs(directory, attempt.claim.signedIn) ?? authenticate(directory, attempt.claim);
  const audit = (message: string) =>
    store.emit({
      type: "log",
      callId: approval.callId,
      tool: approval.tool,
      sessionId: approval.sessionId,
      at: now(),
      message,
      data: {
        approvalId: approval.id,
        attempt: attempt.decision,
        claimed: attempt.claim.name ?? "(token)",
      },
    });
  if (who.status === "rejected") {
    await audit(`refused approval attempt: ${who.message}`);
    return { status: "unauthenticated", message: who.message };
  }
  if (who.locallyAsserted && attempt.terminal === false) {
    await audit(`refused approval attempt: ${who.name}: ${LOCAL_NEEDS_TERMINAL}`);
    return { status: "unauthenticated", message: `${who.name}: ${LOCAL_NEEDS_TERMINAL}.` };
  }
  if (who.name === approval.requestedBy) {
    await audit(`refused approval attempt: ${who.name} requested this call and cannot decide it`);
    return {
      status: "forbidden",
      message: `${who.name} requested this call and cannot approve or deny it.`,
    };
  }
  const allowed =
    approval.approvers && approval.approvers.length > 0 ? approval.approvers : undefined;
  if (allowed && !mayDecide(directory, who.name, allowed)) {
    await audit(`refused approval attempt: ${who.name} is not among ${allowed.join(", ")}`);
    return {
      status: "forbidden",
      message: `${who.name} may not decide this request; it needs ${allowed.join(" or ")}.`,
    };
  }
  if (attempt.decision === "deny" && !attempt.reason?.trim()) {
    return { status: "invalid", message: "A denial needs a reason: it goes back to the model." };
  }
  if (attempt.decision === "approve" && attempt.scope === "session" && !approval.grantKey) {
    const why =
      approval.grantText?.replace(/^not offered: /, "") ??
      "it was requested before session grants were bound to what they cover";
    return {
      status: "invalid",
      message: `Request ${approval.id} offers no session grant (${why}); approve it once instead.`,
    };
  }
  if (
    approval.status === "pending" &&
    approval.expiresAt !== undefined &&
    approval.expiresAt <= now()
  ) {
    await store.expireApprovals(now());
    const expired = (await store.getApproval(approval.id)) ?? approval;
    return {
      status: "conflict",
      message: `Request ${approval.id} expired before it was decided.`,
      approval: expired,
    };
  }
  const at = now();
  // The event that records the decision, in the decision's own commit where the store can: no
  // crash leaves a decision the chain does not hold, and none is acknowledged before it is kept.
  const record = (decided: Approval): StoreEvent => {
    const event = { callId: decided.callId, tool: decided.tool, sessionId: decided.sessionId, at };
    return attempt.decision === "approve"
      ? { ...event, type: "approved", by: who.name, scope: decided.scope, reason: attempt.reason }
      : { ...event, type: "approval_denied", by: who.name, reason: attempt.reason ?? "" };
  };
  const result = await store.decideApproval(
    approval.id,
    {
      decision: attempt.decision === "approve" ? "approved" : "denied",
      by: who.name,
      ...(attempt.reason ? { reason: attempt.reason } : {}),
      ...(attempt.scope ? { scope: attempt.scope } : {}),
      locallyAsserted: who.locallyAsserted,
      at,
    },
    { record },
  );
  switch (result.status) {
    case "decided":
      return { status: "decided", approval: result.approval };
    case "conflict":
      return {
        status: "conflict",
        message: `Request ${approval.id} was already ${result.approval.status}${result.approval.decidedBy ? ` by ${result.approval.decidedBy}` : ""}.`,
        approval: result.approval,
      };
    case "not_found":
      return {
        status: "not_found",
        message: `There is no approval request ${attempt.approvalId}.`,
      };
  }
}
