import { readNetworkConnection } from "../sandbox/network/read-network-connection.js";
import { shown } from "./approval-card.js";
import { type Html, html } from "./html.js";

/**
 * A call's `log` event for the timeline: a sandbox network connection spelled out (where to,
 * the rule's decision, the approver's answer, what became of it, bytes each way, time), any
 * other line as a note. Every field comes from the trail, so it is escaped like the rest.
 *
 * @example
 * ```ts
 * declare const connection: import("../sandbox/network/network-connection.js").NetworkConnection;
 * networkNote({ type: "log", message: "network connection", data: connection }).toString();
 * // "<b>network</b>: connect <code>registry.npmjs.org:443</code>, allow by …"
 * ```
 */
export function networkNote(event: { type: "log"; message: string; data: unknown }): Html {
  const c = readNetworkConnection(event);
  if (c === undefined) return html`<b>note</b>: ${shown(event.message)}`;
  const asked = c.approval ? html` (ask: ${shown(c.approval.replace("_", " "))})` : "";
  const reason = c.reason ? html`: ${shown(c.reason)}` : "";
  return html`<b>network</b>: ${shown(c.kind)} <code>${shown(`${c.host}:${c.port}`)}</code>, ${shown(c.decision)} by ${shown(c.rule)}${asked}; <b>${shown(c.status)}</b>${reason}${c.address ? html` via ${shown(c.address)}` : ""}, ${c.bytesOut} bytes out, ${c.bytesIn} in, ${c.durationMs.toFixed(1)} ms`;
}
