import { createHash } from "node:crypto";
import type { ApprovalAnswer } from "../approval/approval.js";
import { keepsSessionGrants } from "../approval/durable-approver.js";
import type { PolicyVerdict } from "../policy/policy.js";
import { canonicalJson } from "../shared/canonical-json.js";
import type { Tool } from "../tool/tool.js";
import type { CallTrace } from "./call-trace.js";
import type { CheckpointState } from "./checkpoint-state.js";
import { grantScopeFor, sessionGrantsOf } from "./session-grants.js";
import type { RunTaint } from "./taint-ledger.js";
import { taintGrant } from "./taint-verdict.js";
import type { AwaitingApprovalResult, RefusedResult } from "./tool-result.js";

/** What the approval step needs to know about the call. */
export interface ApprovalInput {
  readonly tool: Tool;
  readonly args: Record<string, unknown>;
  readonly principal: string;
  readonly verdict: PolicyVerdict;
  /** The run's taint when the call was decided: a grant from before it does not cover the call. */
  readonly taint?: RunTaint;
  readonly signal: AbortSignal | undefined;
}

const NEVER = new AbortController().signal;

/**
 * Ask the configured approver about a call the policy answered `ask` for. Fails closed: no
 * approver, an approver that throws or answers nonsense, an anonymous answer or the requesting
 * principal approving its own call all mean the call does not run. An earlier "approve for this
 * session" answers at once when this call's grant scope has the same key (see `GrantScope`); an
 * answer of `scope: "session"` for a call that offers no grant is refused, never narrowed silently.
 *
 * @example
 * ```ts
 * declare const [state, trace]: Parameters<typeof requestApproval>;
 * declare const { tool, args, principal, verdict, signal }: ApprovalInput; // verdict: an ask
 * const answered = await requestApproval(state, trace, { tool, args, principal, verdict, signal });
 * if (answered !== "approved") console.log(answered.status); // the call's result: "refused" or "awaiting_approval"
 * ```
 */
export async function requestApproval(
  state: CheckpointState,
  trace: CallTrace,
  { tool, args, principal, verdict, taint, signal }: ApprovalInput,
): Promise<"approved" | RefusedResult | AwaitingApprovalResult> {
  const why = verdict.reason ? ` (${verdict.reason})` : "";
  if (!state.approve) {
    return trace.refuse(
      "approval_required",
      `This call to ${tool.name} needs a human's approval${why}, and no approver is available, so it was not run.`,
    );
  }
  const canonicalArguments = canonicalJson(args);
  const argumentsHash = createHash("sha256").update(canonicalArguments).digest("hex");
  try {
    await trace.emit({
      type: "approval_requested",
      principal,
      argumentsHash,
      approvers: verdict.approvers,
    });
  } catch {
    return trace.refuse(
      "audit_failed",
      "The approval request could not be recorded, so the call was not run.",
    );
  }

  const untainted = grantScopeFor({
    tool,
    args,
    principal,
    sessionId: trace.sessionId,
    verdict,
  });
  const grant = taint?.tainted ? taintGrant(untainted, taint) : untainted;
  // A durable approver keeps grants in the store, behind each call's own record; for the others
  // the checkpoint keeps them, for as long as it lives.
  const grants = keepsSessionGrants(state.approve) ? undefined : sessionGrantsOf(state);
  const earlier = grant.status === "offered" ? grants?.get(grant.key) : undefined;
  if (earlier !== undefined) {
    try {
      await trace.emit({
        type: "approved",
        by: earlier.by,
        scope: "session",
        reason: `granted for this session when call ${earlier.callId} was approved`,
        covers: earlier.covers,
      });
    } catch {
      return trace.refuse(
        "audit_failed",
        "The approval could not be recorded, so the call was not run.",
      );
    }
    return "approved";
  }

  let answer: ApprovalAnswer;
  try {
    answer = await state.approve({
      callId: trace.callId,
      toolName: tool.name,
      tool,
      args,
      canonicalArguments,
      argumentsHash,
      principal,
      sessionId: trace.sessionId,
      verdict,
      grant,
      signal: signal ?? NEVER,
    });
  } catch {
    return trace.refuse(
      "approval_error",
      `Asking for approval of ${tool.name} failed, so the call was not run.`,
    );
  }

  switch (answer?.decision) {
    case "approve": {
      if (typeof answer.by !== "string" || answer.by.trim() === "") {
        return trace.refuse(
          "approval_error",
          `The approval of ${tool.name} named no approver, so the call was not run.`,
        );
      }
      if (answer.by === principal) {
        await trace.emitAfterRun({
          type: "approval_denied",
          by: answer.by,
          reason: "self-approval is not accepted",
        });
        return trace.refuse(
          "approval_denied",
          `${tool.name} was not run: the principal that requested it (${principal}) cannot approve its own call.`,
        );
      }
      const scope = answer.scope ?? "once";
      if (scope !== "once" && (scope !== "session" || grant.status !== "offered")) {
        const why =
          scope !== "session"
            ? `an unknown scope ${JSON.stringify(String(scope))}`
            : `"approve for this session", but this call offers no session grant (${grant.status === "not_offered" ? grant.reason : ""})`;
        await trace.emitAfterRun({
          type: "approval_denied",
          by: answer.by,
          reason: `the approval named ${why}`,
        });
        return trace.refuse(
          "approval_error",
          `The approval of ${tool.name} named ${why}, so the call was not run; it can be approved once.`,
        );
      }
      try {
        // A durable approver wrote the decision when the person made it: once is the story.
        if (answer.recorded !== true) {
          await trace.emit({
            type: "approved",
            by: answer.by,
            scope,
            reason: answer.reason,
            ...(grant.status === "offered" && scope === "session" ? { covers: grant.covers } : {}),
          });
        }
      } catch {
        return trace.refuse(
          "audit_failed",
          "The approval could not be recorded, so the call was not run.",
        );
      }
      if (grant.status === "offered" && scope === "session") {
        grants?.set(grant.key, { by: answer.by, callId: trace.callId, covers: grant.covers });
      }
      return "approved";
    }
    case "deny": {
      const by = typeof answer.by === "string" && answer.by !== "" ? answer.by : "an approver";
      const reason = answer.reason?.trim() || "no reason given";
      if (answer.recorded !== true)
        await trace.emitAfterRun({ type: "approval_denied", by, reason });
      return trace.refuse("approval_denied", `${by} denied this call to ${tool.name}: ${reason}.`);
    }
    case "pending": {
      await trace.emitAfterRun({ type: "awaiting_approval", approvalId: answer.approvalId });
      return {
        callId: trace.callId,
        name: trace.name,
        status: "awaiting_approval",
        reason: "approval_pending",
        approvalId: answer.approvalId,
        message:
          answer.message ??
          `This call to ${tool.name} is waiting for a human's approval (request ${answer.approvalId}); it has not run yet.`,
        durationMs: trace.elapsed(),
        rule: trace.rule,
      };
    }
    default:
      return trace.refuse(
        "approval_error",
        `The approver gave no valid answer for ${tool.name}, so the call was not run.`,
      );
  }
}
