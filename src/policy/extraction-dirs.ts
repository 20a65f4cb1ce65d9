import * as path from "node:path";
import type { DocketOwnFiles, OwnFile } from "../protect/docket-own-files.js";
import { UNKNOWN_BASE } from "./folder-bases.js";
import type { ShellAnalysis, SimpleCommand } from "./shell/shell-analysis.js";

// git commands that write files of a work tree or archive into the folder they run in.
const GIT_WRITES = new Set([
  "checkout",
  "restore",
  "reset",
  "clone",
  "pull",
  "merge",
  "stash",
  "apply",
  "am",
  "switch",
  "rebase",
  "cherry-pick",
  "revert",
  "worktree",
  "init",
]);

/** Whether a command unpacks files whose names it does not show (an archive, a git tree). */
function unpacks(command: SimpleCommand): boolean {
  const name = path.posix.basename(command.program);
  const args = command.argv.slice(1);
  const first = args[0] ?? "";
  switch (name) {
    case "tar":
    case "bsdtar":
    case "gtar":
      return (
        (!first.startsWith("-") && /[xX]/.test(first)) ||
        args.some(
          (arg) =>
            arg === "--extract" ||
            arg === "--get" ||
            (/^-[A-Za-z]+$/.test(arg) && arg.includes("x")),
        )
      );
    case "unzip":
    case "ar":
    case "pax":
      return true;
    case "7z":
    case "7za":
      return first === "x" || first === "e";
    case "cpio":
      return args.some(
        (arg) => arg === "--extract" || (/^-[A-Za-z]+$/.test(arg) && arg.includes("i")),
      );
    case "git": {
      const sub = args.find((arg, i) => !arg.startsWith("-") && args[i - 1] !== "-C");
      return sub !== undefined && GIT_WRITES.has(sub);
    }
    default:
      return false;
  }
}

/**
 * The own file an archive or git tree unpacked by a script may write: one that unpacks in a
 * folder above docket's own files other than the workspace (`cd ~ && tar -xf ws/evil.tar`,
 * `git -C ~ checkout -- .`), or in a folder docket cannot name (`cd - && unzip x.zip`).
 * `dirs` are the commands' folders (see `folderBases`).
 *
 * @example
 * ```ts
 * unpacksAbove(analysis, folderBases(analysis, home).dirs, own, { workspace, home }); // the user policy
 * ```
 */
export function unpacksAbove(
  analysis: ShellAnalysis | undefined,
  dirs: readonly string[],
  own: DocketOwnFiles,
  where: { readonly workspace: string },
): OwnFile | undefined {
  for (const [i, command] of (analysis?.commands ?? []).entries()) {
    const dir = dirs[i];
    if (dir === undefined || dir === "" || !unpacks(command)) continue;
    if (dir === UNKNOWN_BASE) return own.entries[0];
    const absolute = path.resolve(where.workspace, dir).toLowerCase();
    if (absolute === where.workspace.toLowerCase()) continue;
    const below = absolute === path.sep ? absolute : `${absolute}${path.sep}`;
    const entry = own.entries.find((e) => e.path.toLowerCase().startsWith(below));
    if (entry !== undefined) return entry;
  }
  return undefined;
}
