import { createHmac } from "node:crypto";
import type { Approval } from "../store/approval-record.js";
import { type NotifyFormat, notifyBody, notifyFacts } from "./notify-message.js";

/** One receiver of new-request notices. */
export interface NotifyTarget {
  readonly format: NotifyFormat;
  readonly url: string;
}

/**
 * How one notice went: receivers that fail are reported, never retried into a flood. `to` is the
 * format and host only: an incoming webhook's URL is itself a secret.
 */
export type NotifyOutcome =
  | { readonly status: "sent"; readonly to: string; readonly httpStatus: number }
  | { readonly status: "failed"; readonly to: string; readonly reason: string };

/** Options for {@link createApprovalNotifier}. */
export interface ApprovalNotifierOptions {
  readonly targets: readonly NotifyTarget[];
  /** The console's origin as approvers reach it (`https://docket.example.com`). */
  readonly consoleOrigin: string;
  /** Signs generic webhook bodies (HMAC-SHA256); required when a `webhook` target is given. */
  readonly secret?: string | undefined;
  readonly timeoutMs?: number;
  readonly now?: () => number;
}

/**
 * The signature a generic webhook carries in `x-docket-signature`: `sha256=` and the hex
 * HMAC-SHA256, keyed by the shared secret, of `TIMESTAMP.BODY` (TIMESTAMP is the
 * `x-docket-timestamp` header, epoch ms), so a receiver can refuse an old body replayed.
 *
 * @example
 * ```ts
 * declare const req: import("node:http").IncomingMessage;
 * declare const rawBody: string; // the request body exactly as received
 * declare const secret: string; // the one the notifier was configured with
 * const expected = notifySignature(secret, String(req.headers["x-docket-timestamp"]), rawBody);
 * ```
 */
export function notifySignature(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`;
}

/**
 * Announce new approval requests to people where they are: a generic webhook (a signed JSON
 * body), a Slack or a Microsoft Teams incoming webhook. Each notice carries the request's facts
 * and a link to its console card, never its arguments; deciding stays with the authenticated
 * channels (the console, the API, `docket approvals`).
 *
 * @example
 * ```ts
 * declare const approval: import("../store/approval-record.js").Approval;
 * const url = "https://hooks.slack.com/services/T000/B000/XXXX";
 * const consoleOrigin = "https://docket.example.com";
 * const notify = createApprovalNotifier({ targets: [{ format: "slack", url }], consoleOrigin });
 * await notify(approval);
 * ```
 */
export function createApprovalNotifier({
  targets,
  consoleOrigin,
  secret,
  timeoutMs = 5000,
  now = Date.now,
}: ApprovalNotifierOptions): (approval: Approval) => Promise<NotifyOutcome[]> {
  if (targets.some((target) => target.format === "webhook") && !secret)
    throw new Error(
      "A webhook notifier needs a secret to sign its bodies (DOCKET_NOTIFY_SECRET): an unsigned notice could be forged.",
    );
  return (approval) => {
    const facts = notifyFacts(approval, consoleOrigin);
    return Promise.all(
      targets.map(async (target): Promise<NotifyOutcome> => {
        const to = `${target.format} ${URL.canParse(target.url) ? new URL(target.url).host : "(not a URL)"}`;
        const body = JSON.stringify(notifyBody(target.format, facts));
        const headers: Record<string, string> = { "content-type": "application/json" };
        if (target.format === "webhook" && secret) {
          const timestamp = String(now());
          headers["x-docket-timestamp"] = timestamp;
          headers["x-docket-signature"] = notifySignature(secret, timestamp, body);
        }
        try {
          const response = await fetch(target.url, {
            method: "POST",
            headers,
            body,
            redirect: "error",
            signal: AbortSignal.timeout(timeoutMs),
          });
          await response.body?.cancel();
          return response.ok
            ? { status: "sent", to, httpStatus: response.status }
            : { status: "failed", to, reason: `HTTP ${response.status}` };
        } catch (error) {
          return { status: "failed", to, reason: String((error as Error).message) };
        }
      }),
    );
  };
}
