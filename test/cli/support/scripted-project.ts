import { writeFile } from "node:fs/promises";
import { join } from "node:path";

/**
 * Write into `dir` a docket.yaml whose model says "Hello." (script.yaml beside it) and whose
 * policy allows `ls` (and any further `command` patterns given) by rule `safe-shell`.
 *
 * @example
 * ```ts
 * await writeScriptedProject(dir, ["node *"]);
 * ```
 */
export async function writeScriptedProject(dir: string, more: readonly string[] = []) {
  await writeFile(join(dir, "script.yaml"), 'turns:\n  - text: "Hello."\n');
  const commands = ["ls *", ...more].map((pattern) => JSON.stringify(pattern)).join(", ");
  await writeFile(
    join(dir, "docket.yaml"),
    [
      "model: scripted:script.yaml",
      "policy:",
      "  rules:",
      `    - { id: safe-shell, decision: allow, tool: run_command, command: [${commands}] }`,
      "",
    ].join("\n"),
  );
}
