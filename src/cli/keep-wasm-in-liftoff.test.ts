import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const tsx = import.meta.resolve("tsx");
const liftoff = fileURLToPath(new URL("./keep-wasm-in-liftoff.ts", import.meta.url));
const parser = fileURLToPath(new URL("../policy/shell/shell-parser.ts", import.meta.url));

/**
 * The functions V8 compiled with TurboFan in a fresh process that parses a pipeline (tree-sitter)
 * often enough for dynamic tiering to pick the grammar's lexer, with or without the CLI's flags.
 */
function turbofanCompiles(keep: boolean): string[] {
  const script = [
    `import { keepWasmInLiftoff } from ${JSON.stringify(liftoff)};`,
    `import { loadShellParser } from ${JSON.stringify(parser)};`,
    keep ? "keepWasmInLiftoff();" : "",
    "const shell = await loadShellParser();",
    `for (let i = 0; i < 40; i += 1) shell.analyse("yes | head -c 1000000000 > /dev/null");`,
    // Tier-up runs on a background thread: give it the time it takes on a busy machine.
    "await new Promise((resolve) => setTimeout(resolve, 1500));",
  ].join("\n");
  const run = spawnSync(
    process.execPath,
    ["--trace-wasm-compilation-times", "--import", tsx, "--input-type=module", "-e", script],
    { encoding: "utf8", timeout: 60_000 },
  );
  expect(run.status, run.stderr).toBe(0);
  return run.stdout.split("\n").filter((line) => line.includes("using TurboFan"));
}

describe("keepWasmInLiftoff", () => {
  it("keeps the bash grammar out of TurboFan when set at run time, where V8 would optimise it", () => {
    // Without it V8 optimises the grammar's functions (its lexer the costliest): the check below
    // can see a tier-up.
    expect(turbofanCompiles(false).length).toBeGreaterThan(0);
    expect(turbofanCompiles(true)).toEqual([]);
  }, 120_000);
});
