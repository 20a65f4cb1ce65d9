import type { AuditRecord } from "../../store/audit-record.js";

// The checkpoint's steps before the policy (docs/architecture.md): what each refusal means.
const BEFORE_POLICY: Readonly<Record<string, string>> = {
  malformed_call: "refused at step 2, the tool: the call itself could not be read",
  unknown_tool:
    "refused at step 2, the tool: no tool has that name, and the model is sent the names that exist",
  unreadable_arguments:
    "refused at step 3, the arguments: they are not one JSON object, and the model is asked to resend them",
  invalid_arguments:
    "refused at step 3, the arguments: they do not match the tool's schema, and the model is told where",
};

/**
 * The demo's words for how one call was decided, read from its audit events: the step that
 * refused it, what the policy said and by which rule, whom it asked, who approved or denied it and
 * why, and whether its result was capped before the model's context. Only what the trail
 * records is said, so the story cannot drift from what happened.
 *
 * @example
 * ```ts
 * declare const events: import("../../store/audit-record.js").AuditRecord[]; // one call's
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
        if (!decided)
          lines.push(
            `${BEFORE_POLICY[event.reason] ?? "refused before the policy was asked"} (${event.reason})`,
          );
        else if (event.reason === "approval_required")
          lines.push("no one could be asked, so it did not run");
        break;
      case "started":
        lines.push("it runs");
        break;
      case "finished": {
        const kept = Buffer.byteLength(event.output ?? "");
        if (event.outputBytes > kept) {
          lines.push(
            `its result (${event.outputBytes.toLocaleString("en-US")} bytes) is capped to ${kept.toLocaleString("en-US")} before the model's context: the head and tail, and what was cut`,
          );
        }
        break;
      }
      default:
        break;
    }
  }
  return lines;
}
