import { describe, expect, it } from "vitest";
import { createSignInLimiter } from "./sign-in-limiter.js";
import { createSignInSessions, sameToken } from "./sign-in-sessions.js";

describe("console sessions", () => {
  it("finds a session by its cookie until it expires or ends", () => {
    let now = 1_000;
    const sessions = createSignInSessions({ ttlMs: 60_000, now: () => now });
    const { cookie, session } = sessions.start("bob");
    expect(cookie).toMatch(/^[\w-]{43}$/);
    expect(sessions.find(cookie)?.name).toBe("bob");
    expect(sessions.find(`${cookie}x`)).toBeUndefined();
    expect(sessions.find(undefined)).toBeUndefined();
    now += 60_000;
    expect(sessions.find(cookie)).toBeUndefined();
    const again = sessions.start("bob");
    expect(again.session.csrf).not.toBe(session.csrf);
    sessions.end(again.cookie);
    expect(sessions.find(again.cookie)).toBeUndefined();
  });

  it("compares form tokens exactly", () => {
    expect(sameToken("abc", "abc")).toBe(true);
    expect(sameToken("abc", "abd")).toBe(false);
    expect(sameToken("abc", "ab")).toBe(false);
    expect(sameToken("abc", undefined)).toBe(false);
    expect(sameToken("abc", ["abc"])).toBe(false);
  });
});

describe("the sign-in limiter", () => {
  it("allows max attempts per client per window, then says how long to wait", () => {
    let now = 0;
    const limiter = createSignInLimiter({ max: 3, windowMs: 60_000, now: () => now });
    for (let i = 0; i < 3; i += 1) expect(limiter.attempt("a").status).toBe("allowed");
    expect(limiter.attempt("a")).toEqual({ status: "limited", retryAfterSeconds: 60 });
    expect(limiter.attempt("b").status).toBe("allowed");
    now = 30_000;
    expect(limiter.attempt("a")).toEqual({ status: "limited", retryAfterSeconds: 30 });
    now = 60_001;
    expect(limiter.attempt("a").status).toBe("allowed");
  });
});
