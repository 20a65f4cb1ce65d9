import { lazyImport } from "../../shared/lazy-import.js";
import type { RunCommandArgs } from "./run-command.input.js";

// Loaded with the first command, as the policy engine loads its own: a plain-words script
// (`ls -la src`) is read without tree-sitter, which loads only for a script that needs it, so a
// cold `docket policy check` of a plain command stays as quick as before.
const proofParts = lazyImport(async () => {
  const [{ plainAnalysis }, { readOnlyVerdict }] = await Promise.all([
    import("../../policy/shell/plain-analysis.js"),
    import("../../policy/shell/read-only-script.js"),
  ]);
  return { plainAnalysis, readOnlyVerdict };
});
const fullParser = lazyImport(async () =>
  (await import("../../policy/shell/shell-parser.js")).loadShellParser(),
);

/**
 * Whether a `run_command` call writes: `false` only when the shell analysis proves its script
 * read-only (every command a known read-only program used without a writing or program-running
 * option, no output redirected to a file, nothing unanalysable: see
 * src/policy/shell/read-only-script.ts); every other script is a write, as is any failure to
 * decide. The checkpoint calls it once per call, after validation.
 *
 * @example
 * ```ts
 * await runCommandWrites({ command: "git status --short && rg -n TODO src" }); // false
 * await runCommandWrites({ command: "npm install" });                         // true
 * ```
 */
export async function runCommandWrites(args: RunCommandArgs): Promise<boolean> {
  const { plainAnalysis, readOnlyVerdict } = await proofParts();
  const analysis = plainAnalysis(args.command) ?? (await fullParser()).analyse(args.command);
  return readOnlyVerdict(analysis).status !== "read";
}
