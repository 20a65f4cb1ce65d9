import { describe, expect, it } from "vitest";
import type { AuthOutcome } from "./gateway-auth-outcome.js";
import { cacheVerifiedTokens } from "./verified-token-cache.js";

describe("cacheVerifiedTokens", () => {
  it("verifies an accepted token once until the earlier of its expiry and the max age", async () => {
    let clock = 1_000;
    const checked: string[] = [];
    const verify = async (token: string): Promise<AuthOutcome> => {
      checked.push(token);
      return token.startsWith("good")
        ? { status: "ok", principal: { id: token, scopes: [], groups: [] } }
        : { status: "unauthorized", error: "invalid_token", description: "no" };
    };
    const expiries: Record<string, number> = { good: 5_000, "good-long": 1_000_000 };
    const cached = cacheVerifiedTokens(verify, (token) => expiries[token], {
      maxAgeMs: 60_000,
      maxEntries: 2,
      now: () => clock,
    });
    await cached("good");
    await cached("good");
    expect(checked).toEqual(["good"]);
    clock = 5_000; // its exp: checked again (and refused by a real verifier then)
    await cached("good");
    expect(checked).toEqual(["good", "good"]);
    await cached("good-long");
    clock += 60_000; // past the max age: checked again
    await cached("good-long");
    expect(checked.filter((token) => token === "good-long")).toHaveLength(2);
    // Refusals are never remembered.
    await cached("bad");
    await cached("bad");
    expect(checked.filter((token) => token === "bad")).toHaveLength(2);
  });

  it("keeps at most maxEntries tokens, dropping the oldest", async () => {
    const checked: string[] = [];
    const cached = cacheVerifiedTokens(
      async (token) => {
        checked.push(token);
        return { status: "ok", principal: { id: token, scopes: [], groups: [] } };
      },
      () => Date.now() + 600_000,
      { maxEntries: 2 },
    );
    for (const token of ["a", "b", "c", "a"]) await cached(token);
    expect(checked).toEqual(["a", "b", "c", "a"]);
    await cached("c");
    expect(checked).toHaveLength(4);
  });
});
