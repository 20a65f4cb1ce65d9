import type { Approval } from "../store/approval-record.js";

/** Where new approval requests are announced, and in which shape. */
export type NotifyFormat = "webhook" | "slack" | "teams";

/** What every format says about a new request: no arguments, only where to look at them. */
export interface NotifyFacts {
  readonly id: string;
  readonly tool: string;
  readonly rule: string | undefined;
  readonly reason: string | undefined;
  readonly requestedBy: string;
  readonly sessionId: string | undefined;
  readonly argsHash: string;
  readonly createdAt: number;
  readonly expiresAt: number | undefined;
  /** The console's card for this request: decisions are made there, signed in. */
  readonly url: string;
}

/**
 * The facts of a new request, with the link to its console card. The arguments are left out on
 * purpose: a chat channel is no place for them, and the card shows them exactly, with their hash.
 *
 * @example
 * ```ts
 * declare const approval: import("../store/approval-record.js").Approval;
 * notifyFacts(approval, "https://docket.example.com"); // { id, tool, …, url: "https://…/console/approvals/apr_1" }
 * ```
 */
export function notifyFacts(approval: Approval, consoleOrigin: string): NotifyFacts {
  return {
    id: approval.id,
    tool: approval.tool,
    rule: approval.rule,
    reason: approval.reason,
    requestedBy: approval.requestedBy,
    sessionId: approval.sessionId,
    argsHash: approval.argsHash,
    createdAt: approval.createdAt,
    expiresAt: approval.expiresAt,
    url: `${consoleOrigin.replace(/\/+$/, "")}/console/approvals/${encodeURIComponent(approval.id)}`,
  };
}

function summary(facts: NotifyFacts): string {
  return `${facts.requestedBy} asks to call ${facts.tool}${facts.rule ? ` (rule ${facts.rule})` : ""}${facts.reason ? `: ${facts.reason}` : ""}`;
}

/**
 * The JSON body a format's receiver accepts: docket's own for a generic webhook, a message with
 * a link button for a Slack incoming webhook, an Adaptive Card for a Microsoft Teams one.
 *
 * @example
 * ```ts
 * declare const facts: NotifyFacts;
 * JSON.stringify(notifyBody("slack", facts)); // {"text":"…","blocks":[…]}
 * ```
 */
export function notifyBody(format: NotifyFormat, facts: NotifyFacts): unknown {
  switch (format) {
    case "webhook":
      return { type: "approval_requested", ...facts };
    case "slack":
      return {
        text: `Approval needed: ${summary(facts)} ${facts.url}`,
        blocks: [
          {
            type: "section",
            text: { type: "plain_text", text: `Approval needed: ${summary(facts)}` },
          },
          {
            type: "actions",
            elements: [
              {
                type: "button",
                text: { type: "plain_text", text: "Open in the docket console" },
                url: facts.url,
              },
            ],
          },
        ],
      };
    case "teams":
      return {
        type: "message",
        attachments: [
          {
            contentType: "application/vnd.microsoft.card.adaptive",
            content: {
              $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
              type: "AdaptiveCard",
              version: "1.4",
              body: [
                { type: "TextBlock", weight: "Bolder", text: "Approval needed", wrap: true },
                { type: "TextBlock", text: summary(facts), wrap: true },
                {
                  type: "FactSet",
                  facts: [
                    { title: "Request", value: facts.id },
                    { title: "SHA-256", value: facts.argsHash },
                  ],
                },
              ],
              actions: [
                { type: "Action.OpenUrl", title: "Open in the docket console", url: facts.url },
              ],
            },
          },
        ],
      };
  }
}
