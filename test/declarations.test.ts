import { execFile } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = fileURLToPath(new URL("..", import.meta.url));
const modules = realpathSync(join(root, "node_modules"));
const built = existsSync(join(root, "dist/src/index.d.ts"));

// What a TypeScript developer writes first, touching the declarations most programs need.
const AGENT = `import { tool } from "@ai-sdk/provider-utils";
import {
  type ApprovalRequest,
  createCheckpoint,
  createHarness,
  defineTool,
  fromAiSdkTool,
  lintTools,
} from "docket";
import { z } from "zod";

const echo = defineTool({
  name: "echo",
  description: "Repeat the text back. Use it to test the desk.",
  input: z.object({ text: z.string().describe("The text.") }),
  writes: false,
  handler: ({ text }) => text.toUpperCase(),
});
const approvals = (request: ApprovalRequest) => {
  const name: string = request.toolName;
  return { decision: "approve" as const, by: \`lead for \${name}\` };
};
export const findings = lintTools([echo]).length;
export const checkpoint = createCheckpoint({ tools: [echo], approvals, toolLint: false });
export const harness = createHarness({ model: "scripted:script.yaml", tools: [echo], toolLint: false });
export const answer = harness
  .run("Count.", { output: z.object({ n: z.number() }) })
  .then((result) => (result.output?.status === "valid" ? result.output.value.n + 1 : 0));
export const weather = fromAiSdkTool(
  tool({
    description: "The weather in a city. Use it when asked.",
    inputSchema: z.object({ city: z.string().describe("The city.") }),
    execute: async ({ city }) => ({ city, celsius: 21 }),
  }),
  { name: "weather", writes: false },
);
`;

// Diagnostics in other packages' own declarations that every user of them sees with
// skipLibCheck false, whatever docket does: not docket's to fix (README, "TypeScript").
const THEIRS = [/node_modules\/@ai-sdk\/provider\/dist\/index\.d\.ts.*TS7016.*'json-schema'/];

const scratch = mkdtempSync(join(tmpdir(), "docket-declarations-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * A project that has docket and what docket depends on at run time, and nothing of docket's
 * development packages (no @types/picomatch, @types/better-sqlite3, ai): with preserveSymlinks,
 * every import in docket's declarations is resolved from the project's own node_modules.
 */
function consumer(resolution: "nodenext" | "bundler"): string {
  const dir = join(scratch, resolution);
  const link = (from: string, name: string) => {
    mkdirSync(dirname(join(dir, "node_modules", name)), { recursive: true });
    if (!existsSync(join(dir, "node_modules", name)))
      symlinkSync(from, join(dir, "node_modules", name));
  };
  mkdirSync(join(dir, "node_modules/docket"), { recursive: true });
  writeFileSync(
    join(dir, "node_modules/docket/package.json"),
    readFileSync(join(root, "package.json")),
  );
  symlinkSync(join(root, "dist"), join(dir, "node_modules/docket/dist"));
  const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")) as {
    packages: Record<string, { dev?: boolean }>;
  };
  for (const [path, meta] of Object.entries(lock.packages)) {
    const name = path.replace(/^node_modules\//, "");
    if (meta.dev || !path.startsWith("node_modules/") || name.includes("node_modules/")) continue;
    if (existsSync(join(modules, name))) link(join(modules, name), name);
  }
  // What every TypeScript project on Node has.
  for (const name of ["@types/node", "undici-types"]) link(join(modules, name), name);
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "agent", type: "module" }));
  writeFileSync(join(dir, "agent.ts"), AGENT);
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        skipLibCheck: false,
        noEmit: true,
        preserveSymlinks: true,
        types: ["node"],
        lib: ["es2023", "dom"],
        target: "es2022",
        module: resolution === "bundler" ? "esnext" : "nodenext",
        moduleResolution: resolution,
      },
      files: ["agent.ts"],
    }),
  );
  return dir;
}

describe.skipIf(!built)("the published declarations (dist/, npm run build)", () => {
  it.each(["nodenext", "bundler"] as const)(
    "typecheck with skipLibCheck false under %s, with none of docket's development packages",
    async (resolution) => {
      const dir = consumer(resolution);
      const tsc = join(modules, "typescript/bin/tsc");
      const output = await run(process.execPath, [tsc, "-p", dir], { cwd: dir }).then(
        () => "",
        (error: { stdout?: string }) => error.stdout ?? "",
      );
      const errors = output.split("\n").filter((line) => /error TS\d+/.test(line));
      const ours = errors.filter((line) => !THEIRS.some((known) => known.test(line)));
      expect(ours).toEqual([]);
    },
    // A whole typecheck of docket's declarations and their dependencies', from cold.
    240_000,
  );
});
