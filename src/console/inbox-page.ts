import type { ApprovalPage } from "../store/approval-record.js";
import type { Html } from "./html.js";
import { html } from "./html.js";

/**
 * The approvals inbox: the newest page of pending requests (cards rendered by the caller), the
 * count, and the link to older ones. `data-live` tells the console's script to follow the event
 * stream, so new requests appear and decided ones leave without a reload.
 *
 * @example
 * ```ts
 * declare const page: import("../store/approval-record.js").ApprovalPage;
 * declare const cards: import("./html.js").Html[]; // one approvalCard per approval
 * inboxPage(page, cards, { live: true, cursor: page.next }).toString();
 * ```
 */
export function inboxPage(
  page: ApprovalPage,
  cards: readonly Html[],
  { live, cursor }: { live: boolean; cursor?: string | undefined },
): Html {
  const older = page.next
    ? html`<p><a href="/console/?cursor=${encodeURIComponent(page.next)}" rel="next">Older requests →</a></p>`
    : "";
  return html`<h1>Approvals inbox</h1>
<p id="count" aria-live="polite"><span id="pending-total">${page.total}</span> pending${cursor ? ", older page" : ", newest first"}.</p>
<p id="empty" class="empty"${cards.length > 0 ? html` hidden` : ""}>Nothing is waiting for a decision.</p>
<div id="inbox"${live ? html` data-live="/console/events"` : ""}>
${cards}
</div>
${cursor ? html`<p><a href="/console/">← Newest requests</a></p>` : ""}
${older}`;
}
