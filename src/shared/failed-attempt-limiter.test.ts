import { describe, expect, it } from "vitest";
import { FailedAttemptLimiter } from "./failed-attempt-limiter.js";

describe("FailedAttemptLimiter", () => {
  it("throttles an address after its failures, even for the right token, until the window passes", () => {
    let now = 1_000;
    const limiter = new FailedAttemptLimiter({ maxFailures: 3, windowMs: 10_000, now: () => now });
    for (let i = 0; i < 3; i += 1) {
      expect(limiter.admit({ address: "10.0.0.1", token: `guess${i}x` }).status).toBe("allowed");
      limiter.fail({ address: "10.0.0.1", token: `guess${i}x` });
    }
    expect(limiter.admit({ address: "10.0.0.1", token: "the-right-token" })).toEqual({
      status: "throttled",
      retryAfterSeconds: 10,
    });
    expect(limiter.admit({ address: "10.0.0.2", token: "the-right-token" }).status).toBe("allowed");
    now += 10_000;
    expect(limiter.admit({ address: "10.0.0.1", token: "the-right-token" }).status).toBe("allowed");
  });

  it("throttles a token prefix guessed from many addresses", () => {
    const limiter = new FailedAttemptLimiter({ maxFailures: 2 });
    limiter.fail({ address: "a", token: "abcdef-1" });
    limiter.fail({ address: "b", token: "abcdef-2" });
    expect(limiter.admit({ address: "c", token: "abcdef-3" }).status).toBe("throttled");
    expect(limiter.admit({ address: "c", token: "zzzzzz-3" }).status).toBe("allowed");
  });

  it("forgets the oldest keys past its bound", () => {
    const limiter = new FailedAttemptLimiter({ maxFailures: 1, maxKeys: 4 });
    limiter.fail({ address: "first", token: undefined });
    for (let i = 0; i < 4; i += 1) limiter.fail({ address: `other${i}`, token: undefined });
    expect(limiter.admit({ address: "first", token: undefined }).status).toBe("allowed");
    expect(limiter.admit({ address: "other3", token: undefined }).status).toBe("throttled");
  });
});
