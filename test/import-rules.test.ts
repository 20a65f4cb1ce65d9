import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { handlerReExports } from "./support/handler-re-exports.js";

const run = promisify(execFile);
const depcruise = fileURLToPath(
  new URL("../node_modules/dependency-cruiser/bin/dependency-cruise.mjs", import.meta.url),
);

interface Violation {
  readonly rule: { readonly name: string };
  readonly from: string;
  readonly to: string;
}

async function violationsIn(folder: string): Promise<Violation[]> {
  const { stdout } = await run(
    process.execPath,
    [depcruise, folder, "--config", ".dependency-cruiser.cjs", "--output-type", "json"],
    { maxBuffer: 64 * 1024 * 1024 },
  ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? "" }));
  return (JSON.parse(stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

describe("the import rules", () => {
  it("report a module outside the checkpoint that imports the sealing key, a handler or an effect module, statically or with import()", async () => {
    const found = (await violationsIn("test/fixtures/import-rules/src"))
      .map(
        (v) =>
          `${v.rule.name}: ${v.from.replace(/^.*\/src\//, "")} -> ${v.to.replace(/^.*\/src\//, "")}`,
      )
      .sort();
    // Not reported, because allowed: the handler using its effect, the tool definition beside its
    // handler, a type-only import of an effect, a re-export of a handler's types, and the
    // checkpoint reading the seal. A barrel beside the handler is reported for re-exporting it,
    // whoever imports the barrel (loop/sneaky-barrel.ts).
    expect(found).toEqual([
      "effect-modules-only-from-handlers: builtin/web/vet-target.ts -> builtin/web/pinned-request.effect.ts",
      "effect-modules-only-from-handlers: loop/sneaky-dynamic.ts -> builtin/web/pinned-request.effect.ts",
      "effect-modules-only-from-handlers: loop/sneaky-effect.ts -> builtin/web/pinned-request.effect.ts",
      "handler-modules-never-re-exported: builtin/files/all-file-handlers.ts -> builtin/files/read-file.handler.ts",
      "handler-modules-never-re-exported: builtin/files/index.ts -> builtin/files/read-file.handler.ts",
      "handler-modules-only-beside-their-tool: loop/sneaky-dynamic.ts -> builtin/files/read-file.handler.ts",
      "handler-modules-only-beside-their-tool: loop/sneaky-handler.ts -> builtin/files/read-file.handler.ts",
      "handler-seal-only-in-checkpoint: loop/sneaky-unseal.ts -> tool/handler-seal.ts",
    ]);
  });

  it("report a handler exported again under a local name, which the cruiser cannot see", async () => {
    expect(await handlerReExports("test/fixtures/import-rules/src")).toEqual([
      "builtin/files/read-file-alias.ts:4 exports readFile",
      "builtin/files/read-file-alias.ts:5 exports readFile",
      "builtin/files/read-file-alias.ts:6 exports readFile",
    ]);
  });

  it("find no violation in docket's own source", async () => {
    expect(await violationsIn("src")).toEqual([]);
    expect(await handlerReExports("src")).toEqual([]);
  });
});
