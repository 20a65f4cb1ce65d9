import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const src = fileURLToPath(new URL("../../src", import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

// Static (value) imports; `import type` and `await import()` are fine.
const staticImport = /^import\s+(?!type\b)[^;]*?from\s+"([^"]+)"/gms;

describe("the database drivers", () => {
  it("are imported only by their engine's folder, which only open-store.ts loads, on demand", () => {
    const offenders: string[] = [];
    for (const file of sources(src)) {
      const name = relative(src, file);
      const text = readFileSync(file, "utf8");
      for (const [, target = ""] of text.matchAll(staticImport)) {
        const driver = target === "node:sqlite" || target === "pg";
        const engine = /\/(sqlite|postgres)\//.test(target);
        if (driver && !/^store\/(sqlite|postgres)\//.test(name))
          offenders.push(`${name} -> ${target}`);
        if (engine && !/^store\/(sqlite|postgres)\//.test(name))
          offenders.push(`${name} -> ${target}`);
      }
    }
    expect(offenders).toEqual([]);
    const open = readFileSync(join(src, "store", "open-store.ts"), "utf8");
    // Dynamic imports: PostgreSQL's through loadDriver (which names the package when it is not
    // installed), SQLite's directly (node:sqlite is Node's own).
    expect(open).toContain('import("./sqlite/sqlite-engine.js")');
    expect(open).toContain('() => import("./postgres/postgres-engine.js")');
  });
});
