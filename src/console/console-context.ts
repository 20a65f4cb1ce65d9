import type { HttpBindings } from "@hono/node-server";
import type { Context } from "hono";
import type { ApproverDirectory } from "../approval/approver-directory.js";
import type { TrailReport } from "../audit/trail-report.js";
import type { FailedAttemptLimiter } from "../shared/failed-attempt-limiter.js";
import type { Store } from "../store/store.js";
import type { CardWhere } from "./card-context.js";
import { layout } from "./console-layout.js";
import { html } from "./html.js";
import type { InboxFeed } from "./inbox-feed.js";
import type { SignInLimiter } from "./sign-in-limiter.js";
import type { SignInSession, SignInSessions } from "./sign-in-sessions.js";

/** Shared by the console's route modules. */
export interface ConsoleContext {
  readonly store: Store;
  readonly directory: ApproverDirectory;
  readonly sessions: SignInSessions;
  readonly limiter: SignInLimiter;
  /** Failed token checks, shared with the approvals API and the gateway. */
  readonly attempts: FailedAttemptLimiter;
  readonly feed: InboxFeed;
  readonly verifySession: (sessionId: string) => Promise<TrailReport>;
  readonly secureCookie: boolean;
  /** The project and workspace the cards name. */
  readonly where: CardWhere;
  /** Ends every open event stream (on close). */
  readonly streams: Set<() => void>;
}

/** Hono's variables on a console request: the signed-in session, once checked. */
export interface ConsoleEnv {
  Bindings: HttpBindings;
  Variables: { session: SignInSession; cookie: string };
}

/** The cookie that carries a console session. */
export const COOKIE = "docket_console";

/** No inline code, nothing from elsewhere: the console's own files only. */
export const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/**
 * A page with a status, for errors and refusals: the same frame, no stack trace, no detail
 * beyond the message.
 *
 * @example
 * ```ts
 * declare const app: import("hono").Hono<ConsoleEnv>;
 * app.get("/console/sessions/:id", (c) => problemPage(c, 404, "There is no such session."));
 * ```
 */
export function problemPage(
  c: Context,
  status: 400 | 401 | 403 | 404 | 421 | 429 | 500,
  message: string,
) {
  return c.html(
    layout({
      title: "Problem",
      body: html`<h1>${message}</h1><p><a href="/console/">Back to the console</a></p>`,
    }).toString(),
    status,
  );
}
