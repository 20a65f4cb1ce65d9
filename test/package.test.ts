import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = fileURLToPath(new URL("..", import.meta.url));
const built = existsSync(new URL("../dist/src/index.js", import.meta.url));

// `npm ci` runs `prepare`, which builds dist/: these check the package as users get it.
describe.skipIf(!built)("the built package", () => {
  it("imports as `docket` by self-reference, without loading a database driver", async () => {
    const { stdout } = await run(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        "const m = await import('docket'); const { createRequire } = await import('node:module'); const r = createRequire(import.meta.url); console.log(typeof m.createCheckpoint, typeof m.defineTool, Object.keys(r.cache).some((k) => /better-sqlite3|[\\\\/]pg[\\\\/]/.test(k)));",
      ],
      { cwd: root },
    );
    expect(stdout.trim()).toBe("function function false");
  });

  it("runs as the docket bin", async () => {
    const { stdout } = await run("npx", ["--no-install", "docket", "--version"], { cwd: root });
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
