import { describe, expect, it } from "vitest";
import { capText, outputText, renderResult } from "./render-result.js";

describe("renderResult", () => {
  it("shows strings as they are and other output as compact JSON", () => {
    const base = { callId: "c", name: "t", message: "t succeeded.", durationMs: 1 };
    expect(renderResult({ ...base, status: "ok", output: "plain" })).toBe("plain");
    expect(renderResult({ ...base, status: "ok", output: { a: [1, 2] } })).toBe('{"a":[1,2]}');
    expect(renderResult({ ...base, status: "ok", output: undefined })).toBe(
      "(the tool returned no output)",
    );
    expect(renderResult({ ...base, status: "refused", reason: "denied", message: "No." })).toBe(
      "No.",
    );
  });

  it("caps long output keeping the head and the tail, saying how much was cut", () => {
    const text = `HEAD${"x".repeat(100_000)}TAIL`;
    const capped = capText(text, 1024);
    expect(Buffer.byteLength(capped)).toBeLessThanOrEqual(1024);
    expect(capped.startsWith("HEAD")).toBe(true);
    expect(capped.endsWith("TAIL")).toBe(true);
    expect(capped).toMatch(/\[… 99,\d{3} bytes cut …\]/);
  });

  it("never splits a multi-byte character", () => {
    const capped = capText("€".repeat(10_000), 301);
    expect(capped).not.toContain("\uFFFD");
    expect(Buffer.byteLength(capped)).toBeLessThanOrEqual(301);
  });

  it("leaves text under the cap alone", () => {
    expect(capText("short", 10)).toBe("short");
  });

  it("reports unserialisable output as undefined", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(outputText(cyclic)).toBeUndefined();
    expect(outputText(10n)).toBeUndefined();
  });
});
