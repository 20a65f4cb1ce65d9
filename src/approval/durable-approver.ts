import type { Approval } from "../store/approval-record.js";
import type { ApprovalStore } from "../store/approval-store.js";
import { type ApprovalWatch, pollingWatch } from "../store/approval-watch.js";
import type { AuditTrail } from "../store/audit-trail.js";
import { answerFor } from "./answer-for-approval.js";
import type { ApprovalAnswer, ApprovalRequest, Approver } from "./approval.js";
import type { ApproverDirectory } from "./approver-directory.js";
import { askWhileWatching } from "./ask-while-watching.js";
import { approvalIdFor } from "./decide-approval.js";

/** How a durable approver behaves. */
export interface DurableApproverOptions {
  readonly store: ApprovalStore & AuditTrail;
  readonly directory: ApproverDirectory;
  /** `wait`: block until decided or expired. `suspend`: report pending and let the run suspend. */
  readonly mode: "wait" | "suspend";
  /** How long a request stays open. Default 15 minutes. */
  readonly expiresMs?: number;
  /** Who may answer when the rule names nobody. */
  readonly defaultApprovers?: readonly string[];
  /** A channel that can answer now (the operator's terminal). Its answers go through the same checks. */
  readonly interactive?: Approver;
  /** The interactive approver's bearer token (DOCKET_TOKEN), for an approver configured with one. */
  readonly interactiveToken?: string;
  /**
   * Where the interactive channel's person is told that someone else decided first (their
   * question closes at once) or that their late answer was not used. Default: nowhere.
   */
  readonly tellInteractive?: (text: string) => void;
  /**
   * How often a waiting run looks for a decision made elsewhere (CLI, HTTP, another machine).
   * Default 500 ms. On PostgreSQL a decision wakes the run at once (LISTEN/NOTIFY); the poll is
   * the fallback when a notification is lost. SQLite only polls.
   */
  readonly pollMs?: number;
  /** Told when a request is opened, so a person can be pointed at it. */
  readonly onPending?: (approval: Approval) => void;
  readonly now?: () => number;
}

/**
 * Whether "approve for this session" may be offered for a request: when its grant scope is
 * (never for tools that run a shell command, nor for calls outside a session). What it covers
 * is `request.grant.covers`.
 *
 * @example
 * ```ts
 * declare const request: import("./approval.js").ApprovalRequest;
 * canGrantSession(request); // false for run_command
 * ```
 */
export function canGrantSession(request: ApprovalRequest): boolean {
  return request.grant.status === "offered";
}

const grantKeepers = new WeakSet<Approver>();

/**
 * Whether an approver keeps its own session grants (the durable approver keeps them in the store,
 * after the request's own record: a call a person denied stays denied whatever grant covers it).
 * The checkpoint keeps grants in memory only for the other approvers.
 *
 * @example
 * ```ts
 * declare const store: import("../store/store.js").Store;
 * declare const directory: import("./approver-directory.js").ApproverDirectory;
 * keepsSessionGrants(createDurableApprover({ store, directory, mode: "wait" })); // true
 * ```
 */
export function keepsSessionGrants(approver: Approver): boolean {
  return grantKeepers.has(approver);
}

/**
 * An approver whose requests live in the store: bound to the call and the SHA-256 of its canonical
 * arguments, answerable from any channel (terminal, `docket approvals`, HTTP, another process),
 * surviving restarts. Asking again for the same call finds the same request, so a resumed run picks
 * up the decision. An approval is honoured only for exactly the arguments that were approved.
 *
 * @example
 * ```ts
 * import { createHarness } from "../loop/create-harness.js";
 * declare const store: import("../store/store.js").Store;
 * declare const directory: import("./approver-directory.js").ApproverDirectory;
 * declare const tools: import("../tool/tool.js").Tool[];
 * const model = "anthropic:claude-sonnet-4-5";
 * const approvals = createDurableApprover({ store, directory, mode: "suspend" });
 * const harness = createHarness({ model, tools, store, approvals });
 * ```
 */
export function createDurableApprover({
  store,
  directory,
  mode,
  expiresMs = 15 * 60_000,
  defaultApprovers = [],
  interactive,
  interactiveToken,
  tellInteractive,
  pollMs = 500,
  onPending,
  now = Date.now,
}: DurableApproverOptions): Approver {
  const approver: Approver = async (request) => {
    const id = approvalIdFor(request.sessionId, request.callId);
    let approval = await store.getApproval(id);
    if (!approval) {
      const granted = await sessionGrant(store, request);
      if (granted) return granted;
      const approvers = request.verdict.approvers?.length
        ? request.verdict.approvers
        : defaultApprovers;
      approval = await store.createApproval({
        id,
        callId: request.callId,
        tool: request.tool.name,
        canonicalArgs: request.canonicalArguments,
        argsHash: request.argumentsHash,
        requestedBy: request.principal,
        createdAt: now(),
        expiresAt: now() + expiresMs,
        ...(request.sessionId !== undefined ? { sessionId: request.sessionId } : {}),
        ...(request.verdict.rule ? { rule: request.verdict.rule } : {}),
        ...(request.verdict.reason ? { reason: request.verdict.reason } : {}),
        ...(approvers.length ? { approvers } : {}),
        ...(request.grant.status === "offered"
          ? { grantKey: request.grant.key, grantText: request.grant.covers }
          : { grantText: `not offered: ${request.grant.reason}` }),
      });
      onPending?.(approval);
    }
    // Interest before the read below: a decision made in between still wakes the wait.
    const watch = mode === "wait" || interactive ? await store.watchApproval(id) : undefined;
    try {
      if (watch) approval = (await store.getApproval(id)) ?? approval;
      return await settle(approval, watch);
    } finally {
      watch?.close();
    }

    async function settle(
      start: Approval,
      watch: ApprovalWatch | undefined,
    ): Promise<ApprovalAnswer> {
      let approval = start;
      for (;;) {
        if (
          approval.status === "pending" &&
          approval.expiresAt !== undefined &&
          approval.expiresAt <= now()
        ) {
          await store.expireApprovals(now());
          approval = (await store.getApproval(id)) ?? approval;
        }
        if (approval.status !== "pending") return answerFor(approval, request);
        if (interactive)
          return askWhileWatching({
            store,
            directory,
            approval,
            request,
            interactive,
            interactiveToken,
            watch,
            pollMs,
            now,
            tell: tellInteractive,
          });
        if (mode === "suspend") {
          return {
            decision: "pending",
            approvalId: id,
            message: `This call to ${request.tool.name} is waiting for approval (request ${id}); it has not run.`,
          };
        }
        if (request.signal.aborted) {
          // Withdrawn: a decision given after this clears nothing, and the queue says so.
          // Withdrawn, in the words the chain records (its cross-check reads both): a decision
          // given after this clears nothing. One decided meanwhile keeps its decision; the call
          // is not run either way.
          const withdrawn = {
            decision: "deny",
            by: "docket",
            reason: "the run was cancelled while waiting for approval",
          } as const;
          // With its event, in one commit where the store can; one decided first keeps its own.
          const result = await store
            .decideApproval(
              id,
              { decision: "denied", by: withdrawn.by, reason: withdrawn.reason },
              {
                record: (a) => ({
                  ...{ callId: a.callId, tool: a.tool, sessionId: a.sessionId, at: now() },
                  ...{ type: "approval_denied", by: withdrawn.by, reason: withdrawn.reason },
                }),
              },
            )
            .catch(() => undefined);
          if (result?.status === "conflict") return answerFor(result.approval, request);
          return result?.status === "decided" ? { ...withdrawn, recorded: true } : withdrawn;
        }
        await (watch ?? pollingWatch()).next(
          Math.min(pollMs, Math.max(1, (approval.expiresAt ?? Number.POSITIVE_INFINITY) - now())),
          request.signal,
        );
        approval = (await store.getApproval(id)) ?? approval;
      }
    }
  };
  grantKeepers.add(approver);
  return approver;
}

/**
 * An earlier "approve for this session" in the store answers at once when its grant key is this
 * request's: the same tool, rules, votes and judged argument values (see `GrantScope`). A grant
 * recorded without a key (before grants were bound, or for a call that offered none) covers
 * nothing but its own call.
 */
async function sessionGrant(
  store: ApprovalStore,
  request: ApprovalRequest,
): Promise<ApprovalAnswer | undefined> {
  const scope = request.grant;
  if (request.sessionId === undefined || scope.status !== "offered") return undefined;
  const approved = await store.listApprovals({ sessionId: request.sessionId, status: "approved" });
  const grant = approved.find(
    (a) => a.scope === "session" && a.grantKey === scope.key && a.tool === request.tool.name,
  );
  if (!grant) return undefined;
  return {
    decision: "approve",
    by: grant.decidedBy ?? "unknown",
    scope: "session",
    reason: `granted for this session by request ${grant.id}`,
  };
}
