import type { Approver } from "../approval/approval.js";
import {
  type ApproverConfig,
  type ApproverDirectory,
  createApproverDirectory,
} from "../approval/approver-directory.js";
import type { DecisionAttempt, DecisionOutcome } from "../approval/decide-approval.js";
import type { DurableApproverOptions } from "../approval/durable-approver.js";
import { DocketError } from "../errors/docket-error.js";
import type { Store } from "../store/store.js";

/**
 * Durable approvals in one harness option: the people who may answer, by name, with the
 * durable approver's other options. The harness builds the approver directory and a durable
 * approver on its own store, so a request is bound to the call's argument hash, survives
 * restarts and can be answered from any channel (`docket approvals`, the console, the HTTP API,
 * or `harness.decideApproval`).
 */
export interface HarnessApprovals
  extends Omit<DurableApproverOptions, "store" | "directory" | "mode" | "now"> {
  /** Who may answer, as docket.yaml's `approvers`: `{ alice: { roles: ["lead"] } }`. */
  readonly approvers: Readonly<Record<string, ApproverConfig>>;
  /** `suspend` (default): the run ends `suspended` until decided. `wait`: the run waits. */
  readonly mode?: "wait" | "suspend";
}

/** The harness's approvals, resolved: the approver for its checkpoint, and decisions in code. */
export interface ResolvedHarnessApprovals {
  /** The approver the harness's checkpoint asks, once its store is open; undefined: none. */
  approverFor(store: Store): Promise<Approver | undefined>;
  /** Decide a request through the same checks as every channel. */
  decide(store: Store, attempt: DecisionAttempt): Promise<DecisionOutcome>;
}

/**
 * Resolve `createHarness`'s `approvals`: an `Approver` function is used as it is; the object
 * form becomes a directory now (a bad token hash throws here, at creation) and a durable approver
 * on the harness's store when it opens.
 *
 * @example
 * ```ts
 * import type { Store } from "../store/store.js";
 * declare const store: Store;
 * declare const approvalId: string;
 * const approvals = resolveHarnessApprovals({ approvers: { alice: { roles: ["lead"] } } });
 * const approver = await approvals.approverFor(store); // a durable approver, mode "suspend"
 * await approvals.decide(store, { approvalId, decision: "approve", claim: { name: "alice" } });
 * ```
 */
export function resolveHarnessApprovals(
  option: Approver | HarnessApprovals | undefined,
): ResolvedHarnessApprovals {
  if (option === undefined || typeof option === "function") {
    return {
      approverFor: async () => option,
      decide: async () => {
        throw new DocketError(
          "config_invalid",
          "harness.decideApproval needs durable approvals: createHarness({ approvals: { approvers: { alice: { roles: ['lead'] } } } }); with an approver function, decide with decideApproval(store, directory, attempt).",
        );
      },
    };
  }
  const { approvers, mode = "suspend", ...rest } = option;
  const directory: ApproverDirectory = createApproverDirectory(approvers);
  // One approver per store: the checkpoint knows it by identity (it keeps its session grants).
  let durable: { store: Store; approver: Approver } | undefined;
  return {
    async approverFor(store) {
      if (durable?.store !== store) {
        const { createDurableApprover } = await import("../approval/durable-approver.js");
        durable = { store, approver: createDurableApprover({ ...rest, store, directory, mode }) };
      }
      return durable.approver;
    },
    async decide(store, attempt) {
      const { decideApproval } = await import("../approval/decide-approval.js");
      return decideApproval(store, directory, attempt);
    },
  };
}
