import * as path from "node:path";
import type { DocketOwnFiles, OwnFile } from "../protect/docket-own-files.js";
import { type FolderBases, UNKNOWN_BASE } from "./folder-bases.js";
import { ownTail, startsUnknown, unknownAsGlob } from "./own-path-tail.js";

/**
 * The own file a script's word names from any folder the script may be in (`folders`, see
 * `folderBases`), by `check` (given the word as a path, and whether an unknown expansion in it
 * became a wildcard). `$HOME` is `~`, unless the script assigns `HOME`. From a folder docket
 * cannot name (`cd -`, `cd $DIR`), and for a word starting with an unknown expansion
 * (`$XDG_CONFIG_HOME/docket/…`), the word is matched by the last names of `tails`' paths when
 * `tails` is given (see `ownTail`).
 *
 * @example
 * ```ts
 * import { folderBases } from "./folder-bases.js";
 * declare const analysis: import("./shell/shell-analysis.js").ShellAnalysis; // of `cd ~ && cat …`
 * declare const own: import("../protect/docket-own-files.js").DocketOwnFiles;
 * declare const check: (text: string, expanded: boolean) => import("../protect/docket-own-files.js").OwnFile | undefined;
 * const home = "/home/ada";
 * wordInFolders(".config/docket/policy.yaml", folderBases(analysis, home), own, check); // after `cd ~`
 * ```
 */
export function wordInFolders(
  token: string,
  folders: FolderBases,
  tails: DocketOwnFiles | undefined,
  check: (text: string, expanded: boolean) => OwnFile | undefined,
): OwnFile | undefined {
  const word = folders.homeKnown
    ? token.replace(/^\$\{?HOME\}?(?=\/|$)/, "~")
    : token.replace(/^~(?=\/|$)/, "$HOME");
  const tail = (text: string) => (tails === undefined ? undefined : ownTail(text, tails));
  if (startsUnknown(word)) return tail(word);
  const text = unknownAsGlob(word);
  const expanded = text !== word;
  const relative = !path.isAbsolute(text) && !text.startsWith("~");
  for (const base of folders.bases) {
    if (base !== "" && !relative) continue;
    const hit =
      base === ""
        ? check(text, expanded)
        : base === UNKNOWN_BASE
          ? tail(text)
          : check(path.join(base, text), expanded);
    if (hit !== undefined) return hit;
  }
  return undefined;
}
