import { lazyImport } from "../../shared/lazy-import.js";
import type { RunCommandArgs } from "./run-command.input.js";

// The analyser loads with the first command, as the policy engine's does: a process that never
// runs one never loads tree-sitter.
const readOnlyProof = lazyImport(async () => {
  const [{ loadShellParser }, { readOnlyVerdict }] = await Promise.all([
    import("../../policy/shell/shell-parser.js"),
    import("../../policy/shell/read-only-script.js"),
  ]);
  const parser = await loadShellParser();
  return (script: string) => readOnlyVerdict(parser.analyse(script));
});

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
  const prove = await readOnlyProof();
  return prove(args.command).status !== "read";
}
