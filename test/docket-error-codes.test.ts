import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const src = fileURLToPath(new URL("../src", import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

describe("DocketError codes", () => {
  it("lists in DocketErrorCode every code src/ throws, and none it never throws", () => {
    const union = readFileSync(join(src, "errors/docket-error.ts"), "utf8");
    const declared = new Set(
      [
        ...(union.match(/export type DocketErrorCode =([\s\S]*?);/)?.[1] ?? "").matchAll(
          /"([a-z_]+)"/g,
        ),
      ].map((m) => m[1]),
    );
    const thrown = new Set<string>();
    for (const file of sources(src)) {
      const text = readFileSync(file, "utf8");
      // A subclass of DocketError passes its code to `super`.
      for (const m of text.matchAll(/(?:DocketError|super)\(\s*"([a-z_]+)"/g))
        thrown.add(m[1] as string);
      // Codes handed to helpers that throw with them (readYamlSource, jsonText).
      for (const m of text.matchAll(
        /(?:readYamlSource|parseYamlSource|jsonText)\([^)]*?"([a-z_]+)"/g,
      ))
        thrown.add(m[1] as string);
    }
    expect([...thrown].filter((code) => !declared.has(code)).sort()).toEqual([]);
    expect([...declared].filter((code) => !thrown.has(code as string)).sort()).toEqual([]);
  });

  it("lists them in alphabetical order, so that a reader finds one and a merge adds one in place", () => {
    const union = readFileSync(join(src, "errors/docket-error.ts"), "utf8");
    const codes = [
      ...(union.match(/export type DocketErrorCode =([\s\S]*?);/)?.[1] ?? "").matchAll(
        /"([a-z_]+)"/g,
      ),
    ].map((m) => m[1] as string);
    expect(codes.length).toBeGreaterThan(10);
    expect(codes).toEqual([...codes].sort());
  });
});
