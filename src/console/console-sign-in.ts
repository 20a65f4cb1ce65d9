import type { Hono } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { authenticate } from "../approval/approver-directory.js";
import { COOKIE, type ConsoleContext, type ConsoleEnv } from "./console-context.js";
import { layout } from "./console-layout.js";
import { signInPage } from "./sign-in-page.js";
import { sameToken } from "./sign-in-sessions.js";

/**
 * Sign-in and sign-out. A token is checked the way the approvals API checks a bearer token
 * (hashed, compared in constant time); attempts are rate-limited per client address, and wrong
 * tokens count in the process's shared failed-attempt limiter (per address and token prefix); the
 * session cookie is HttpOnly, SameSite=Strict, limited to /console and expires.
 *
 * @example
 * ```ts
 * declare const app: import("hono").Hono<import("./console-context.js").ConsoleEnv>;
 * declare const context: import("./console-context.js").ConsoleContext;
 * registerSignIn(app, context);
 * ```
 */
export function registerSignIn(app: Hono<ConsoleEnv>, context: ConsoleContext): void {
  const { directory, sessions, limiter, attempts } = context;
  app.get("/console/sign-in", (c) => {
    if (sessions.find(getCookie(c, COOKIE))) return c.redirect("/console/", 303);
    return c.html(layout({ title: "Sign in", body: signInPage() }).toString());
  });
  app.post("/console/sign-in", async (c) => {
    const client = c.env?.incoming?.socket?.remoteAddress ?? "unknown";
    const limit = limiter.attempt(client);
    if (limit.status === "limited") {
      c.header("retry-after", String(limit.retryAfterSeconds));
      const problem = `Too many sign-in attempts: wait ${limit.retryAfterSeconds} s.`;
      return c.html(layout({ title: "Sign in", body: signInPage({ problem }) }).toString(), 429);
    }
    const form = await c.req.parseBody();
    const token = typeof form.token === "string" ? form.token.trim() : "";
    // The limiter every token check of the process shares (the approvals API, the gateway):
    // wrong tokens here and there add up, and while throttled even the right one is not checked.
    const attempt = { address: client, token };
    const admission = attempts.admit(attempt);
    if (admission.status === "throttled") {
      c.header("retry-after", String(admission.retryAfterSeconds));
      const problem = `Too many wrong tokens from this address or with this token: wait ${admission.retryAfterSeconds} s.`;
      return c.html(layout({ title: "Sign in", body: signInPage({ problem }) }).toString(), 429);
    }
    const who =
      token.length > 0 && token.length <= 512 ? authenticate(directory, { token }) : undefined;
    if (who?.status !== "authenticated") {
      attempts.fail(attempt);
      const problem = "That token matches no approver.";
      return c.html(layout({ title: "Sign in", body: signInPage({ problem }) }).toString(), 401);
    }
    const { cookie } = sessions.start(who.name);
    setCookie(c, COOKIE, cookie, {
      httpOnly: true,
      sameSite: "Strict",
      path: "/console",
      maxAge: Math.floor(sessions.ttlMs / 1000),
      secure: context.secureCookie,
    });
    return c.redirect("/console/", 303);
  });
  app.post("/console/sign-out", async (c) => {
    const cookie = getCookie(c, COOKIE);
    const session = sessions.find(cookie);
    const form = await c.req.parseBody();
    if (session && sameToken(session.csrf, form._csrf)) sessions.end(cookie);
    deleteCookie(c, COOKIE, { path: "/console" });
    return c.redirect("/console/sign-in", 303);
  });
}
