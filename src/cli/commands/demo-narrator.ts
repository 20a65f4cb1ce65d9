import type { AuditRecord } from "../../store/audit-record.js";

/**
 * The demo's words for how one call was decided, read from its audit events: what the policy
 * said and by which rule, whom it asked, who approved or denied it and why. Only what the trail
 * records is said, so the story cannot drift from what happened.
 *
 * @example
 * ```ts
 * narrateCall(events);
 * // ["the policy says ask, by rule refund-ceiling: refunds over 150 USD need a lead's approval",
 * //  "asked role:lead for approval", "approved by lead (--approve)"]
 * ```
 */
export function narrateCall(events: readonly AuditRecord[]): string[] {
  const lines: string[] = [];
  let decided = false;
  for (const { event } of events) {
    switch (event.type) {
      case "decided": {
        decided = true;
        const rule = event.rule ? `, by rule ${event.rule}` : "";
        const verb = { allow: "allows it", ask: "says ask", deny: "denies it" }[event.decision];
        lines.push(`the policy ${verb}${rule}${event.reason ? `: ${event.reason}` : ""}`);
        break;
      }
      case "approval_requested":
        lines.push(`asked ${event.approvers?.join(" or ") ?? "an approver"} for approval`);
        break;
      case "approved":
        lines.push(`approved by ${event.by}${event.reason ? ` (${event.reason})` : ""}`);
        break;
      case "approval_denied":
        lines.push(`denied by ${event.by}${event.reason ? ` (${event.reason})` : ""}`);
        break;
      case "refused":
        if (!decided) lines.push(`refused before the policy was asked (${event.reason})`);
        else if (event.reason === "approval_required")
          lines.push("no one could be asked, so it did not run");
        break;
      case "started":
        lines.push("it runs");
        break;
      default:
        break;
    }
  }
  return lines;
}
