import { describe, expect, it } from "vitest";
import { generateToken, hasBearerToken } from "./bearer-token.js";

describe("hasBearerToken", () => {
  const token = generateToken();

  it("accepts exactly the token, as a Bearer credential", () => {
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(hasBearerToken(`Bearer ${token}`, token)).toBe(true);
    expect(hasBearerToken(`bearer ${token}`, token)).toBe(true);
  });

  it.each([
    undefined,
    "",
    token,
    `Bearer ${token}x`,
    `Bearer ${token.slice(1)}`,
    `Basic ${token}`,
    "Bearer ",
  ])("refuses %j", (header) => {
    expect(hasBearerToken(header, token)).toBe(false);
  });

  it("never accepts anything when the expected token is empty", () => {
    expect(hasBearerToken("Bearer ", "")).toBe(false);
  });
});
