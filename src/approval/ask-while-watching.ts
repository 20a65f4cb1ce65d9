import type { Approval } from "../store/approval-record.js";
import type { ApprovalStore } from "../store/approval-store.js";
import { type ApprovalWatch, pollingWatch } from "../store/approval-watch.js";
import type { AuditTrail } from "../store/audit-trail.js";
import { answerFor } from "./answer-for-approval.js";
import type { ApprovalAnswer, ApprovalRequest, Approver } from "./approval.js";
import type { ApproverDirectory } from "./approver-directory.js";
import { decideApproval } from "./decide-approval.js";

/** What asking an interactive channel beside the store needs. */
export interface AskWhileWatchingOptions {
  readonly store: ApprovalStore & AuditTrail;
  readonly directory: ApproverDirectory;
  readonly approval: Approval;
  readonly request: ApprovalRequest;
  readonly interactive: Approver;
  readonly interactiveToken?: string | undefined;
  /** Interest in the request's decision, taken before `approval` was read. */
  readonly watch: ApprovalWatch | undefined;
  readonly pollMs: number;
  readonly now: () => number;
  /** Where the interactive channel's person is told what became of their question. */
  readonly tell?: ((text: string) => void) | undefined;
}

/**
 * Ask the interactive channel (the operator's terminal) while watching the store: whichever
 * decides first wins. A decision made elsewhere (`docket approvals`, HTTP, the console, another
 * process) or the request's expiry ends the question at once, and the person at the terminal is
 * told who decided; an answer typed there after someone else decided is not used, and they are
 * told so.
 *
 * @example
 * ```ts
 * import type { AskWhileWatchingOptions as Ask } from "./ask-while-watching.js";
 * declare const { store, directory, approval, request, interactive, watch }: Ask;
 * const answer = await askWhileWatching({ store, directory, approval, request, interactive, watch, pollMs: 500, now: Date.now });
 * ```
 */
export async function askWhileWatching({
  store,
  directory,
  approval,
  request,
  interactive,
  interactiveToken,
  watch,
  pollMs,
  now,
  tell = () => undefined,
}: AskWhileWatchingOptions): Promise<ApprovalAnswer> {
  const settled = new AbortController();
  const signal = AbortSignal.any([request.signal, settled.signal]);
  type First =
    | { readonly from: "here"; readonly answer: ApprovalAnswer }
    | { readonly from: "elsewhere"; readonly decided: Approval };
  const asked: Promise<First> = Promise.resolve(interactive({ ...request, signal })).then(
    (answer) => ({ from: "here", answer }),
    () => ({
      from: "here",
      answer: { decision: "deny", by: "docket", reason: "the terminal could not ask" },
    }),
  );
  const elsewhere: Promise<First> = decidedInStore(
    store,
    approval,
    watch,
    pollMs,
    now,
    signal,
  ).then((decided) => (decided ? { from: "elsewhere", decided } : asked));
  const first = await Promise.race([asked, elsewhere]);
  settled.abort();
  if (first.from === "elsewhere") {
    await asked;
    // The prompt above is still open on its line.
    tell(`\n  ${decidedBy(first.decided)}: the question here is closed.\n`);
    return answerFor(first.decided, request);
  }
  const answer = first.answer;
  if (answer.decision === "pending") return answer;
  const outcome = await decideApproval(
    store,
    directory,
    {
      approvalId: approval.id,
      decision: answer.decision,
      reason: answer.reason ?? (answer.decision === "deny" ? "denied" : undefined),
      ...(answer.decision === "approve" && answer.scope ? { scope: answer.scope } : {}),
      claim: { name: answer.by, ...(interactiveToken ? { token: interactiveToken } : {}) },
    },
    now,
  );
  switch (outcome.status) {
    case "decided":
      return answerFor(outcome.approval, request);
    case "conflict":
      tell(
        `  your answer (${answer.decision}) was not used: ${decidedBy(outcome.approval)} first.\n`,
      );
      return answerFor(outcome.approval, request);
    case "unauthenticated":
    case "forbidden":
    case "not_found":
    case "invalid":
      return {
        decision: "deny",
        by: "docket",
        reason: `the answer of ${answer.by} was not accepted: ${outcome.message.replace(/\.$/, "")}`,
      };
  }
}

/** "approved by bob (reason)", "expired", as a person reads it. */
function decidedBy(approval: Approval): string {
  if (approval.status === "expired") return `request ${approval.id} expired`;
  const reason = approval.decisionReason ? ` (${approval.decisionReason})` : "";
  return `${approval.status} elsewhere by ${approval.decidedBy ?? "unknown"}${reason}`;
}

/** The request once decided or expired in the store; undefined if `signal` ends the wait first. */
async function decidedInStore(
  store: ApprovalStore,
  start: Approval,
  watch: ApprovalWatch | undefined,
  pollMs: number,
  now: () => number,
  signal: AbortSignal,
): Promise<Approval | undefined> {
  let approval = start;
  const waiting = watch ?? pollingWatch();
  for (;;) {
    if (signal.aborted) return undefined;
    if (approval.status !== "pending") return approval;
    const expiresAt = approval.expiresAt ?? Number.POSITIVE_INFINITY;
    if (expiresAt <= now()) {
      await store.expireApprovals(now());
    } else {
      await waiting.next(Math.min(pollMs, Math.max(1, expiresAt - now())), signal);
    }
    if (signal.aborted) return undefined;
    approval = (await store.getApproval(approval.id)) ?? approval;
  }
}
