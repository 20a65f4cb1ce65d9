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

/**
 * Whether a command unpacks files whose names it does not show (an archive, a git tree):
 * `"anywhere"` when their names may be absolute or climb out (`tar -P`, `cpio -i`, `unzip -:`,
 * `pax -r`), `"here"` when they land in the folder it runs in.
 */
function unpacks(command: SimpleCommand): "no" | "here" | "anywhere" {
  const name = path.posix.basename(command.program);
  const args = command.argv.slice(1);
  const first = args[0] ?? "";
  const short = (letters: RegExp) =>
    args.some((arg) => /^-[A-Za-z]+$/.test(arg) && letters.test(arg));
  switch (name) {
    case "tar":
    case "bsdtar":
    case "gtar": {
      const bundle = !first.startsWith("-") ? first : "";
      const extracts =
        /[xX]/.test(bundle) || args.includes("--extract") || args.includes("--get") || short(/x/);
      if (!extracts) return "no";
      return /P/.test(bundle) || short(/P/) || args.includes("--absolute-names")
        ? "anywhere"
        : "here";
    }
    case "unzip":
      return args.some((arg) => /^-[A-Za-z]*:/.test(arg)) ? "anywhere" : "here";
    case "ar":
      return "here";
    case "pax":
      return short(/r/) ? "anywhere" : "no";
    case "7z":
    case "7za":
      return first === "x" || first === "e" ? "here" : "no";
    case "cpio":
      // GNU cpio keeps absolute member names unless told not to.
      if (!args.includes("--extract") && !short(/i/)) return "no";
      return args.includes("--no-absolute-filenames") ? "here" : "anywhere";
    case "git": {
      const sub = args.find((arg, i) => !arg.startsWith("-") && args[i - 1] !== "-C");
      return sub !== undefined && GIT_WRITES.has(sub) ? "here" : "no";
    }
    default:
      return "no";
  }
}

/**
 * The own file an archive or git tree unpacked by a script may write: one that unpacks in a
 * folder above docket's own files other than the workspace (`cd ~ && tar -xf ws/evil.tar`,
 * `git -C ~ checkout -- .`), or in a folder docket cannot name (`cd - && unzip x.zip`), or
 * with names that may be absolute (`tar -xPf`, `cpio -i`).
 * `dirs` are the commands' folders (see `folderBases`).
 *
 * @example
 * ```ts
 * import { folderBases } from "./folder-bases.js";
 * declare const analysis: import("./shell/shell-analysis.js").ShellAnalysis; // of `cd ~/.config && tar xf x.tar`
 * declare const own: import("../protect/docket-own-files.js").DocketOwnFiles;
 * const workspace = "/ws";
 * const home = "/home/ada";
 * unpacksAbove(analysis, folderBases(analysis, home).dirs, own, { workspace }); // the user policy
 * ```
 */
export function unpacksAbove(
  analysis: ShellAnalysis | undefined,
  dirs: readonly string[],
  own: DocketOwnFiles,
  where: { readonly workspace: string },
): OwnFile | undefined {
  for (const [i, command] of (analysis?.commands ?? []).entries()) {
    const how = unpacks(command);
    const dir = how === "anywhere" ? UNKNOWN_BASE : dirs[i];
    if (how === "no" || dir === undefined || dir === "") continue;
    if (dir === UNKNOWN_BASE) return own.entries[0];
    const absolute = path.resolve(where.workspace, dir).toLowerCase();
    if (absolute === where.workspace.toLowerCase()) continue;
    const below = absolute === path.sep ? absolute : `${absolute}${path.sep}`;
    // The workspace's own files (`.docket/`) are as open to an archive unpacked in the
    // workspace itself: they are left to the sandbox, so `cd .. && git checkout x` in a
    // monorepo's package stays possible.
    const inside = `${where.workspace.toLowerCase()}${path.sep}`;
    const entry = own.entries.find((e) => {
      const lower = e.path.toLowerCase();
      return lower.startsWith(below) && !lower.startsWith(inside);
    });
    if (entry !== undefined) return entry;
  }
  return undefined;
}
