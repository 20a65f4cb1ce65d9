import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { type PackedProject, packedDocket } from "./support/packed-docket.js";

const run = promisify(execFile);
const root = fileURLToPath(new URL("..", import.meta.url));

// `npm pack` of this checkout installed into a fresh project (test/support/packed-docket.ts):
// the package as users get it.
describe("the installed package", () => {
  let project: PackedProject;
  beforeAll(async () => {
    project = await packedDocket("lean");
  }, 900_000);

  it("imports as `docket` from the project, without loading a database driver", async () => {
    const { stdout } = await run(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        "const m = await import('docket'); const { createRequire } = await import('node:module'); const r = createRequire(import.meta.url); console.log(typeof m.createCheckpoint, typeof m.defineTool, Object.keys(r.cache).some((k) => /[\\\\/]pg[\\\\/]/.test(k)) || process.moduleLoadList.includes('NativeModule sqlite'));",
      ],
      { cwd: project.dir },
    );
    expect(stdout.trim()).toBe("function function false");
  });

  it("runs as the docket bin through npx", async () => {
    const { stdout } = await run("npx", ["--no-install", "docket", "--version"], {
      cwd: project.dir,
    });
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
