import type { PolicyVerdict } from "../policy/policy.js";
import { scanSecrets } from "../shared/scan-secrets.js";
import type { Tool } from "../tool/tool.js";
import type { FlowRules } from "./flow-options.js";
import type { RunTaint } from "./taint-ledger.js";

/** A session's labels when a call is decided: what private data and untrusted content came in. */
export interface SessionLabels {
  readonly untrusted: RunTaint;
  readonly private: RunTaint;
}

/** The label names a session holds, for CEL `session.labels` and the trail. */
export type LabelName = "private" | "untrusted";

/** The rule ids the flow checks decide with, in layer `docket`. */
export const FLOW_RULE = "docket:flow";
export const SECRET_RULE = "docket:secret-in-arguments";

/**
 * The names of the labels a session holds, `private` first.
 *
 * @example
 * ```ts
 * import { type RunTaint, UNTAINTED } from "./taint-ledger.js";
 * declare const taint: RunTaint;
 * labelNames({ untrusted: taint, private: UNTAINTED }); // ["untrusted"]
 * ```
 */
export function labelNames(labels: SessionLabels): LabelName[] {
  const names: LabelName[] = [];
  if (labels.private.tainted) names.push("private");
  if (labels.untrusted.tainted) names.push("untrusted");
  return names;
}

/**
 * The flow rule and the secret check, applied to the policy's verdict for a call on an outward
 * channel. Arguments carrying a credential are denied (unless the scanner is off). A session that
 * holds both `private` and `untrusted` turns allow and ask into `flow.outward` (ask by default),
 * the reason naming the latest source of each label, so the approver and the trail see the
 * whole flow. Deny stays deny; a call that cannot send is left alone.
 *
 * @example
 * ```ts
 * import type { PolicyVerdict } from "../policy/policy.js";
 * import type { Tool } from "../tool/tool.js";
 * import type { FlowRules } from "./flow-options.js";
 * declare const tool: Tool;
 * declare const verdict: PolicyVerdict;
 * declare const labels: SessionLabels;
 * declare const flow: FlowRules;
 * flowVerdict({ tool, verdict, labels, sends: true, rawArguments: '{"url":"https://x"}', flow });
 * // { decision: "ask", rule: "docket:flow", reason: "private data (read_file …, call c1) and …" }
 * ```
 */
export function flowVerdict({
  tool,
  verdict,
  labels,
  sends,
  rawArguments,
  flow,
}: {
  readonly tool: Tool;
  readonly verdict: PolicyVerdict;
  readonly labels: SessionLabels;
  readonly sends: boolean;
  readonly rawArguments: string;
  readonly flow: FlowRules;
}): PolicyVerdict {
  if (!sends || verdict.decision === "deny") return verdict;
  if (flow.secrets !== "off") {
    const scan = scanSecrets(rawArguments);
    if (scan.status === "found") {
      return {
        decision: "deny",
        rule: SECRET_RULE,
        layer: "docket",
        reason: `its arguments carry a credential (${scan.kinds.join(", ")}), and ${tool.name} can send data out of this session; docket does not let a secret leave`,
      };
    }
  }
  if (!labels.private.tainted || !labels.untrusted.tainted) return verdict;
  const flowReason = `${describeFlow(labels)}, and ${tool.name} can send data out`;
  if (flow.outward === "deny") {
    return { decision: "deny", rule: FLOW_RULE, layer: "docket", reason: flowReason };
  }
  if (verdict.decision === "ask") {
    return { ...verdict, reason: verdict.reason ? `${flowReason}; ${verdict.reason}` : flowReason };
  }
  const by = verdict.rule ? ` (rule ${verdict.rule} allows it)` : "";
  return {
    decision: "ask",
    rule: FLOW_RULE,
    layer: "docket",
    reason: `${flowReason}${by}: a human must approve it`,
  };
}

/**
 * Both sources of a flow in words: the latest private result and the latest untrusted one.
 *
 * @example
 * ```ts
 * declare const labels: SessionLabels;
 * describeFlow(labels);
 * // "private data (read_file data/customers/a.csv, call c1) and untrusted content (fetch_url https://x, call c2) are in this session"
 * ```
 */
export function describeFlow(labels: SessionLabels): string {
  return `private data (${latest(labels.private)}) and untrusted content (${latest(labels.untrusted)}) are in this session`;
}

function latest(label: RunTaint): string {
  const last = label.sources[label.sources.length - 1];
  if (last === undefined) return "an earlier result";
  const more = label.count > 1 ? `; ${label.count - 1} more` : "";
  return `${last.source}, call ${last.callId}${more}`;
}
