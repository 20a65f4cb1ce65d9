import { describe, expect, it } from "vitest";
import { hostAllowed } from "./host-check.js";

describe("hostAllowed", () => {
  it("accepts the loopback names and the bound address, with or without a port", () => {
    for (const host of [
      "127.0.0.1:7420",
      "localhost:7420",
      "LOCALHOST",
      "[::1]:7420",
      "127.0.0.1",
    ]) {
      expect(hostAllowed(host, { bound: "127.0.0.1" }), host).toBe(true);
    }
    expect(hostAllowed("10.0.0.5:7420", { bound: "10.0.0.5" })).toBe(true);
    expect(
      hostAllowed("approvals.example.com", {
        bound: "127.0.0.1",
        allowed: ["approvals.example.com"],
      }),
    ).toBe(true);
  });

  it("refuses other names (DNS rebinding), a wildcard bind's name, and malformed headers", () => {
    for (const host of [
      "evil.example:7420",
      "127.0.0.1.evil.example",
      "localhost.evil.example",
      "127.0.0.1:7420@evil.example",
      "127.0.0.1 :7420",
      "",
      undefined,
      "0.0.0.0:7420",
    ]) {
      expect(hostAllowed(host, { bound: "0.0.0.0" }), String(host)).toBe(false);
    }
  });
});
