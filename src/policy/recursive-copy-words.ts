import * as path from "node:path";
import type { ShellAnalysis } from "./shell/shell-analysis.js";

// Programs that copy, archive or search whole trees by default, whatever their options.
const ALWAYS_RECURSIVE = new Set(["tar", "bsdtar", "gtar", "rsync", "unzip", "7z", "rg", "ditto"]);
// Programs that do so with a recursive option: short letters (in any bundle) and long names.
const RECURSIVE_OPTIONS: Readonly<Record<string, { short: RegExp; long: readonly string[] }>> = {
  cp: { short: /[rRa]/, long: ["--recursive", "--archive"] },
  scp: { short: /r/, long: [] },
  zip: { short: /[rR]/, long: ["--recurse-paths"] },
  grep: { short: /[rR]/, long: ["--recursive", "--dereference-recursive"] },
  egrep: { short: /[rR]/, long: ["--recursive", "--dereference-recursive"] },
  fgrep: { short: /[rR]/, long: ["--recursive", "--dereference-recursive"] },
};

/**
 * The operands of every command in a script that copies, archives, syncs or searches a folder
 * tree (`cp -r`, `cp -al`, `tar c`, `rsync -a`, `zip -r`, `grep -r`, `rg`): naming a folder above
 * docket's own files to one of them reads or replaces those files without naming them.
 *
 * @example
 * ```ts
 * import { loadShellParser } from "./shell/shell-parser.js";
 * const parser = await loadShellParser();
 * recursiveCopyWords(parser.analyse("cp -r ~ hh")); // ["~", "hh"]
 * ```
 */
export function recursiveCopyWords(analysis: ShellAnalysis | undefined): string[] {
  const words: string[] = [];
  for (const command of analysis?.commands ?? []) {
    const name = path.posix.basename(command.program);
    const args = command.argv.slice(1);
    const options = RECURSIVE_OPTIONS[name];
    const recursive =
      ALWAYS_RECURSIVE.has(name) ||
      (options !== undefined &&
        args.some((arg) =>
          arg.startsWith("--")
            ? options.long.includes(arg.split("=")[0] as string)
            : arg.startsWith("-") && options.short.test(arg.slice(1)),
        ));
    if (!recursive) continue;
    for (const arg of args) {
      // `--directory=~`, `-C ~` and `--files-from` name folders too: the value is kept.
      const value =
        arg.startsWith("--") && arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : arg;
      if (value !== "" && !value.startsWith("-")) words.push(value);
    }
  }
  return words;
}
