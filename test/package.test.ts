import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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

  it("plays the shipped demo with its tools resolved through `docket`, one copy of docket", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "docket-package-demo-"));
    try {
      const { stdout } = await run(process.execPath, [`${root}dist/src/cli/main.js`, "demo"], {
        cwd,
        env: { ...process.env, NO_COLOR: "1" },
      });
      // A second copy would know none of the example's tools: every refund call "unknown_tool"
      // (the demo's one invented name, lookup_order, is refused so on purpose).
      expect(stdout).not.toMatch(/(get_order|issue_refund|escalate_to_human) +\S.*unknown_tool/);
      expect(stdout).toMatch(/call_partial_refund\s+issue_refund\s+ask\s+refund-ceiling/);
      expect(stdout).toMatch(/call_full_refund\s+issue_refund\s+deny\s+refund-limit/);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it("runs as the docket bin", async () => {
    const { stdout } = await run("npx", ["--no-install", "docket", "--version"], { cwd: root });
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});

describe("the package as npm would pack it", () => {
  it("ships a LICENSE, no source maps pointing at unshipped files, and ESM-only exports", async () => {
    const { stdout } = await run("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
      cwd: root,
      maxBuffer: 32 * 1024 * 1024,
    });
    const [packed] = JSON.parse(stdout) as { files: { path: string }[] }[];
    const files = (packed?.files ?? []).map((file) => file.path);
    expect(files).toContain("LICENSE");
    expect(files.filter((file) => file.endsWith(".map"))).toEqual([]);
    // Maps would point at src/, which is not shipped: the build emits none.
    const build = JSON.parse(readFileSync(`${root}tsconfig.build.json`, "utf8")) as {
      compilerOptions: Record<string, unknown>;
    };
    expect(build.compilerOptions.sourceMap).not.toBe(true);
    // The shipped example is what users copy: it imports the package, never docket's sources.
    for (const file of files.filter((path) => /^(dist\/)?examples\/.*\.(ts|js)$/.test(path))) {
      const text = readFileSync(`${root}${file}`, "utf8");
      expect(text, file).not.toMatch(/from "(\.\.\/)+src\//);
    }
    expect(files.some((path) => path.startsWith("examples/support-desk/"))).toBe(true);
    expect(build.compilerOptions.declarationMap).not.toBe(true);
    const manifest = JSON.parse(readFileSync(`${root}package.json`, "utf8")) as {
      type: string;
      exports: Record<string, unknown>;
    };
    expect(manifest.type).toBe("module");
    expect(JSON.stringify(manifest.exports)).not.toMatch(/"require"/);
  });
});
