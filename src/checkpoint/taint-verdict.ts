import { createHash } from "node:crypto";
import type { GrantScope } from "../policy/grant-scope.js";
import type { PolicyVerdict } from "../policy/policy.js";
import type { Tool } from "../tool/tool.js";
import { describeTaint, type RunTaint, type TaintedWrites } from "./taint-ledger.js";

/**
 * Apply a run's taint to the policy's verdict. While tainted, a write a rule allows is asked
 * instead (unless `writes: "allow"`), and every ask names the untrusted result that came before
 * it, so the approver knows the model had just read text from outside. Deny stays deny.
 *
 * @example
 * ```ts
 * declare const refundTool: import("../tool/tool.js").Tool;
 * declare const taint: import("./taint-ledger.js").RunTaint; // after a fetch_url
 * taintVerdict(refundTool, { decision: "allow", rule: "small-refunds" }, taint, "ask");
 * // { decision: "ask", rule: "small-refunds", reason: "after fetch_url https://… (call c4): …" }
 * ```
 */
export function taintVerdict(
  tool: Tool,
  verdict: PolicyVerdict,
  taint: RunTaint,
  writes: TaintedWrites,
): PolicyVerdict {
  if (!taint.tainted) return verdict;
  const after = describeTaint(taint);
  if (verdict.decision === "allow" && tool.writes && writes === "ask") {
    const by = verdict.rule ? `rule ${verdict.rule} allows it, but ` : "";
    return {
      ...verdict,
      decision: "ask",
      reason: `${after}: ${by}a write that follows untrusted content needs a human's approval`,
    };
  }
  if (verdict.decision === "ask") {
    return { ...verdict, reason: verdict.reason ? `${verdict.reason} (${after})` : after };
  }
  return verdict;
}

/**
 * A session grant's scope as seen while tainted: its key is bound to the latest untrusted result,
 * so "approve for this session" given before that result arrived does not cover calls after it
 * (whether the checkpoint or a durable approver keeps the grant).
 *
 * @example
 * ```ts
 * import { grantScopeFor } from "./session-grants.js";
 * declare const input: Parameters<typeof grantScopeFor>[0]; // tool, args, principal, session, verdict
 * declare const taint: import("./taint-ledger.js").RunTaint;
 * const scope = taintGrant(grantScopeFor(input), taint); // a different key once tainted
 * ```
 */
export function taintGrant(grant: GrantScope, taint: RunTaint): GrantScope {
  const last = taint.sources[taint.sources.length - 1];
  if (grant.status !== "offered" || last === undefined) return grant;
  const key = createHash("sha256")
    .update(`${grant.key}\0taint\0${taint.count}\0${last.callId}`)
    .digest("hex");
  return { ...grant, key, covers: `${grant.covers}, ${describeTaint(taint)}` };
}
