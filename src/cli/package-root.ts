import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseJson } from "../shared/parse-json.js";

/**
 * docket's own package folder and version, found by walking up from this module: the same code
 * runs from `src/cli` (tsx) and from `dist/src/cli` (built).
 *
 * @example
 * ```ts
 * import { join } from "node:path";
 * join(packageRoot().dir, "examples/support-desk/script.yaml");
 * ```
 */
export function packageRoot(): { dir: string; version: string } {
  for (let dir = new URL(".", import.meta.url); dir.pathname !== "/"; dir = new URL("..", dir)) {
    try {
      const pkg = parseJson(readFileSync(new URL("package.json", dir), "utf8")) as {
        name?: string;
        version: string;
      };
      if (pkg.name === "docket") return { dir: fileURLToPath(dir), version: pkg.version };
    } catch {}
  }
  throw new Error("docket's package.json was not found above its own modules");
}
