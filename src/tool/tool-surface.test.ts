import { describe, expect, it } from "vitest";
import { entryText, estimateTokens, surfaceCost } from "./tool-surface.js";

describe("surfaceCost", () => {
  it("counts the system prompt and each menu entry as sent, one token per four bytes", () => {
    const menu = [
      { name: "echo", description: "Repeat. Use it to test.", inputSchema: { type: "object" } },
      { name: "ping", description: "Ping a host. Use it when asked.", inputSchema: {} },
    ];
    const cost = surfaceCost(menu, "Be brief.");
    const bytes = menu.map((entry) => Buffer.byteLength(entryText(entry)));
    expect(cost.tools.map((t) => t.bytes)).toEqual(bytes);
    expect(cost.menuBytes).toBe(bytes.reduce((n, b) => n + b, 0));
    expect(cost.menuTokens).toBe(Math.ceil(cost.menuBytes / 4));
    expect(cost.systemTokens).toBe(3);
    expect(cost.tokens).toBe(cost.systemTokens + cost.menuTokens);
  });

  it("measures bytes, not characters", () => {
    expect(estimateTokens("é".repeat(4))).toBe(2);
    expect(estimateTokens("")).toBe(0);
  });
});
