import type { Http2Bindings, HttpBindings } from "@hono/node-server";
import { Hono } from "hono";
import { getCookie } from "hono/cookie";
import { csrf } from "hono/csrf";
import { HTTPException } from "hono/http-exception";
import type { ApproverDirectory } from "../approval/approver-directory.js";
import type { TrailReport } from "../audit/trail-report.js";
import { verifyStoreTrail } from "../audit/verify-store-trail.js";
import {
  type FailedAttemptLimiter,
  processAttemptLimiter,
} from "../shared/failed-attempt-limiter.js";
import { hostAllowed } from "../shared/host-check.js";
import type { Store } from "../store/store.js";
import type { CardWhere } from "./card-context.js";
import { CONSOLE_CSS, CONSOLE_JS } from "./console-assets.js";
import {
  COOKIE,
  type ConsoleContext,
  type ConsoleEnv,
  CSP,
  problemPage,
} from "./console-context.js";
import { registerDecidedView } from "./console-decided.js";
import { registerConsoleEvents } from "./console-events.js";
import { CONSOLE_KEYS_JS } from "./console-keys.js";
import { registerConsolePages } from "./console-pages.js";
import { registerSessionPages } from "./console-sessions.js";
import { registerSignIn } from "./console-sign-in.js";
import { createInboxFeed, type InboxFeed } from "./inbox-feed.js";
import { createSignInLimiter, type SignInLimiter } from "./sign-in-limiter.js";
import { createSignInSessions, type SignInSessions } from "./sign-in-sessions.js";

/** Everything the console needs; all but `store` and `directory` have defaults. */
export interface ConsoleOptions {
  readonly store: Store;
  readonly directory: ApproverDirectory;
  /** The address the server is bound to, for the Host check (default 127.0.0.1). */
  readonly host?: string;
  /** Further names the Host header may carry (a TLS proxy's public name). */
  readonly allowedHosts?: readonly string[];
  /** `docket audit verify` for one session (default: chains, transcript and tables, without a key). */
  readonly verifySession?: (sessionId: string) => Promise<TrailReport>;
  readonly sessions?: SignInSessions;
  /** Sign-in attempts per address, right or wrong (default 5 a minute). */
  readonly limiter?: SignInLimiter;
  /**
   * Wrong tokens per address and token prefix, shared by every token check of the process
   * (default: the process's own, which the approvals API and the gateway use too).
   */
  readonly attempts?: FailedAttemptLimiter;
  readonly feed?: InboxFeed;
  /** Mark the cookie `Secure` (behind a TLS proxy). */
  readonly secureCookie?: boolean;
  /** The project (docket.yaml) and workspace the requests come from, shown on every card. */
  readonly where?: CardWhere;
}

/** A running console: its fetch handler and how to stop its live parts. */
export interface WebConsole {
  readonly app: Hono<ConsoleEnv>;
  readonly fetch: (
    request: Request,
    env: HttpBindings | Http2Bindings,
  ) => Response | Promise<Response>;
  close(): void;
}

/**
 * The web console served by `docket serve`: sign-in with an approver's token, the approvals
 * inbox (live through server-sent events), sessions with their conversation and audit timeline.
 * Server-rendered HTML, no external assets, a strict Content-Security-Policy, CSRF checks on
 * every form (Origin and a per-session token), and the Host check against DNS rebinding.
 *
 * @example
 * ```ts
 * import { getRequestListener } from "@hono/node-server";
 * import { serveApprovals } from "../approval/approvals-http-server.js";
 * declare const store: import("../store/store.js").Store;
 * declare const directory: import("../approval/approver-directory.js").ApproverDirectory;
 * const web = createWebConsole({ store, directory });
 * const api = await serveApprovals({ store, directory, fallback: getRequestListener(web.fetch) });
 * ```
 */
export function createWebConsole({
  store,
  directory,
  host = "127.0.0.1",
  allowedHosts = [],
  verifySession = (sessionId) => verifyStoreTrail(store, { sessionId }),
  sessions = createSignInSessions(),
  limiter = createSignInLimiter(),
  attempts = processAttemptLimiter(),
  feed = createInboxFeed(store),
  secureCookie = false,
  where = {},
}: ConsoleOptions): WebConsole {
  const context: ConsoleContext = {
    store,
    directory,
    sessions,
    limiter,
    attempts,
    feed,
    verifySession,
    secureCookie,
    where,
    streams: new Set(),
  };
  const app = new Hono<ConsoleEnv>();
  app.use("*", async (c, next) => {
    if (!hostAllowed(c.req.header("host"), { bound: host, allowed: allowedHosts })) {
      return c.text("This console answers only to its own address (Host check).", 421);
    }
    await next();
    c.header("content-security-policy", CSP);
    c.header("x-content-type-options", "nosniff");
    c.header("x-frame-options", "DENY");
    c.header("referrer-policy", "no-referrer");
    c.header("cross-origin-opener-policy", "same-origin");
    c.header("cross-origin-resource-policy", "same-origin");
    if (!c.req.path.startsWith("/console/assets/")) c.header("cache-control", "no-store");
  });
  // Origin (or Sec-Fetch-Site) must be this console's for every form post; forms also carry a token.
  app.use("*", csrf());
  app.get("/", (c) => c.redirect("/console/", 303));
  app.get("/console", (c) => c.redirect("/console/", 303));
  app.get("/console/assets/console.css", (c) =>
    c.body(CONSOLE_CSS, 200, {
      "content-type": "text/css; charset=utf-8",
      "cache-control": "max-age=300",
    }),
  );
  app.get("/console/assets/console.js", (c) =>
    c.body(`${CONSOLE_JS}${CONSOLE_KEYS_JS}`, 200, {
      "content-type": "text/javascript; charset=utf-8",
      "cache-control": "max-age=300",
    }),
  );
  registerSignIn(app, context);
  app.use("/console/*", async (c, next) => {
    const cookie = getCookie(c, COOKIE);
    const session = sessions.find(cookie);
    if (!session || !cookie) {
      if (c.req.method === "GET" && c.req.path !== "/console/events")
        return c.redirect("/console/sign-in", 303);
      return problemPage(c, 401, "Sign in first.");
    }
    c.set("session", session);
    c.set("cookie", cookie);
    await next();
  });
  registerConsolePages(app, context);
  registerDecidedView(app, context);
  registerConsoleEvents(app, context);
  registerSessionPages(app, context);
  app.notFound((c) => problemPage(c, 404, "There is no such page."));
  app.onError((error, c) => {
    const status = error instanceof HTTPException ? error.status : 500;
    const response = problemPage(
      c,
      status === 403 ? 403 : 500,
      status === 403
        ? "Refused: this form did not come from this console (cross-site request)."
        : "The request failed.",
    );
    for (const [name, value] of [
      ["content-security-policy", CSP],
      ["x-content-type-options", "nosniff"],
      ["cache-control", "no-store"],
    ] as const)
      response.headers.set(name, value);
    return response;
  });
  return {
    app,
    fetch: (request, env) => app.fetch(request, env as HttpBindings),
    close() {
      for (const end of context.streams) end();
      feed.close();
    },
  };
}
