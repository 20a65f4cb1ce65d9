import { execFile } from "node:child_process";
import { mkdir, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { type PackedProject, packedDocket } from "../support/packed-docket.js";

const run = promisify(execFile);
const checkoutModules = fileURLToPath(new URL("../../node_modules", import.meta.url));

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

// Types do not vary with the Node line: once, on the line that runs the whole suite (CI runs
// test/packed on 22 and 26 too).
const onWholeSuiteNode = process.versions.node.startsWith("24.");

let lean: PackedProject;
beforeAll(async () => {
  if (onWholeSuiteNode) lean = await packedDocket("lean");
}, 900_000);

/**
 * A TypeScript project inside the lean install (docket's tarball installed alone with `npm i`, so
 * only what docket depends on at run time is there, none of its development packages), plus what
 * every TypeScript project on Node has: @types/node.
 */
async function consumer(resolution: "nodenext" | "bundler" | "node10"): Promise<string> {
  const dir = join(lean.dir, `typescript-${resolution}`);
  await rm(dir, { recursive: true, force: true });
  await mkdir(join(dir, "node_modules/@types"), { recursive: true });
  await symlink(
    await realpath(join(checkoutModules, "@types/node")),
    join(dir, "node_modules/@types/node"),
  );
  await writeFile(join(dir, "package.json"), JSON.stringify({ name: "agent", type: "module" }));
  await writeFile(join(dir, "agent.ts"), AGENT);
  await writeFile(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        skipLibCheck: false,
        noEmit: true,
        types: ["node"],
        lib: ["es2023", "dom"],
        target: "es2022",
        module: resolution === "nodenext" ? "nodenext" : "esnext",
        moduleResolution: resolution,
        // node10 is deprecated in TypeScript 5.x: say so once, to hear what it says of docket.
        ...(resolution === "node10" ? { ignoreDeprecations: "5.0" } : {}),
      },
      files: ["agent.ts"],
    }),
  );
  return dir;
}

/** tsc's `error TS…` lines for the consumer project in `dir`. */
async function typeErrors(dir: string): Promise<string[]> {
  const tsc = join(checkoutModules, "typescript/bin/tsc");
  const output = await run(process.execPath, [tsc, "-p", dir], { cwd: dir }).then(
    () => "",
    (error: { stdout?: string }) => error.stdout ?? "",
  );
  return output.split("\n").filter((line) => /error TS\d+/.test(line));
}

describe.skipIf(!onWholeSuiteNode)(
  "the packed package's declarations, in a TypeScript project that installed it",
  () => {
    it.each(["nodenext", "bundler"] as const)(
      "typecheck with skipLibCheck false under %s, with none of docket's development packages",
      async (resolution) => {
        const errors = await typeErrors(await consumer(resolution));
        const ours = errors.filter((line) => !THEIRS.some((known) => known.test(line)));
        expect(ours).toEqual([]);
      },
      // A whole typecheck of docket's declarations and their dependencies', from cold.
      240_000,
    );

    it("resolve under node10 through the `types` field; only dependencies' own declarations fail there", async () => {
      const errors = await typeErrors(await consumer("node10"));
      // node10 reads no `exports`: docket's types come from the manifest's `types` field, and the
      // app and docket's declarations typecheck. zod's and the AI SDK's declarations need
      // nodenext or bundler (or skipLibCheck), which is why the README does not support node10.
      const ours = errors.filter(
        (line) => !/^\.\.\/node_modules\/(zod|@ai-sdk\/provider(-utils)?)\//.test(line),
      );
      expect(ours).toEqual([]);
      expect(errors.length).toBeGreaterThan(0);
    }, 240_000);
  },
);
