import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { type PackedProject, packedDocket } from "./support/packed-docket.js";
import { repeatedFunctions } from "./support/repeated-functions.js";

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

  it("ships each piece of code once: the library and the CLI share their modules", () => {
    const repeated = repeatedFunctions(join(project.dir, "node_modules/docket/dist"));
    // Three standalone bundles repeat code, on purpose: the CLI's two CommonJS bundles (the plain
    // policy check's and every other command's), because V8's code cache covers a single script
    // (docs/adr/0022-code-cache.md, 0057, 0087), and the launcher with the hook's daemon client
    // in it and its chunks, which must load nothing but the launcher on a hook call (0068,
    // 0098). Each holds at most one copy of what the shared modules hold; nothing else repeats.
    const client = (file: string) =>
      file === "src/cli/main.js" || file.startsWith("src/cli/bin/hook-client/");
    const standalone = (file: string) =>
      file === "src/cli/bin/policy-check.cjs" || file === "src/cli/bin/cli.cjs" || client(file);
    const shared = (copy: { files: readonly string[] }) =>
      copy.files.filter((file) => !standalone(file));
    const elsewhere = repeated.filter((copy) => shared(copy).length > 1);
    expect(elsewhere.map((copy) => `${copy.name}: ${copy.files.join(", ")}`)).toEqual([]);
    for (const copy of repeated) {
      expect(copy.files.filter(client).length, copy.name).toBeLessThanOrEqual(1);
    }
    // The CLI's bundle requires the packages docket installs from node_modules: it holds no copy
    // of its own of them (issue 34).
    const cliBundle = readFileSync(
      join(project.dir, "node_modules/docket/dist/src/cli/bin/cli.cjs"),
      "latin1",
    );
    for (const external of ["@modelcontextprotocol/sdk", "hono", "jose", "diff", "ignore"])
      expect(cliBundle, external).toMatch(new RegExp(`require\\("${external}[/"]`));
  });

  it("holds no placeholder in its manifest (a name, address or owner still to fill in)", () => {
    const installed = readFileSync(join(project.dir, "node_modules/docket/package.json"), "utf8");
    for (const [where, text] of [
      ["installed", installed],
      ["checkout", readFileSync(`${root}package.json`, "utf8")],
    ] as const) {
      expect(placeholders(JSON.parse(text)), where).toEqual([]);
    }
  });
});

describe("the README's set-up commands, as a fresh checkout runs them", () => {
  const readme = readFileSync(`${root}README.md`, "utf8");
  const block = /## Set up\s+```sh[^\n]*\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";
  const commands = block
    .split("\n")
    .flatMap((line) => (line.split("#")[0] ?? "").split("&&"))
    .map((command) => command.trim())
    .filter((command) => command !== "");
  const manifest = JSON.parse(readFileSync(`${root}package.json`, "utf8")) as {
    scripts: Record<string, string>;
  };

  it("name only scripts the checkout has, and no bin a checkout lacks", () => {
    expect(commands).toEqual(expect.arrayContaining(["npm ci", "npm test"]));
    for (const command of commands) {
      const [tool, verb, name] = command.split(/\s+/);
      // npm installs no bin for the package itself: `npx docket` in the checkout would look
      // the name up on the registry instead of running this build.
      expect(tool, command).not.toBe("npx");
      if (verb === "run") expect(Object.keys(manifest.scripts), command).toContain(name);
      else expect(["ci", "test"], command).toContain(verb);
    }
  });

  it.skipIf(!existsSync(`${root}dist/src/cli/main.js`))(
    "play the demo through the built CLI, as `npm run docket demo` does",
    async () => {
      const demo = commands.find((command) => /^npm run docket demo\b/.test(command));
      expect(demo).toBeDefined();
      const scratch = await mkdtemp(join(tmpdir(), "docket-readme-demo-"));
      try {
        const { stdout } = await run(
          "npm",
          ["run", "-s", "docket", "demo", "--", "--store", `sqlite:${join(scratch, "d.db")}`],
          {
            cwd: root,
            env: { ...process.env, HOME: scratch, DOCKET_CONFIG: "", DOCKET_STORE: "" },
          },
        );
        expect(stdout).toMatch(/call_full_refund\s+issue_refund\s+deny\s+refund-limit/);
        expect(stdout).toMatch(/ok: \d+ events in 1 chain verified/);
      } finally {
        await rm(scratch, { recursive: true, force: true });
      }
    },
    120_000,
  );
});

// What a template leaves for its user to fill in: OWNER, <name>, your-org, TODO, example.com.
const PLACEHOLDER =
  /\bOWNER\b|<[a-z][\w -]*>|\byour[-_ ]?(name|org|user|repo)|\bTODO\b|\bFIXME\b|\bexample\.(com|org)\b|\bX{3,}\b/i;

/** Every string in a manifest (keys and values, at any depth) that reads as a placeholder. */
function placeholders(value: unknown, path = "package.json"): string[] {
  if (typeof value === "string") return PLACEHOLDER.test(value) ? [`${path}: ${value}`] : [];
  if (Array.isArray(value))
    return value.flatMap((item, at) => placeholders(item, `${path}[${at}]`));
  if (value !== null && typeof value === "object") {
    return Object.entries(value).flatMap(([key, inner]) => [
      ...(PLACEHOLDER.test(key) ? [`${path}: key ${key}`] : []),
      ...placeholders(inner, `${path}.${key}`),
    ]);
  }
  return [];
}

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
