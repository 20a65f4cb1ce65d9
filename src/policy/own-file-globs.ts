import * as path from "node:path";
import type { DocketOwnFiles, OwnFile } from "../protect/docket-own-files.js";
import { GLOB_CHARS, type GlobReach, globAlternatives, globReach } from "./glob-reach.js";
import { expandHome } from "./resolve-policy-path.js";

// Longer words are no path a shell or a tool would open.
const MAX_STRING_CHARS = 4096;

/**
 * A glob that could match a path inside one of `own`'s folders, or the folder or one above it
 * in the workspace by a pattern with a letter in it: `node_modules/do*ket/x`, `n*` followed by
 * `/docket/x`, `node_mod*`. A lone `*` at the workspace is left to the sandbox, so `git add *` is not
 * refused for matching node_modules. Matched segment by segment against each folder's path.
 *
 * @example
 * ```ts
 * declare const codeFiles: import("../protect/docket-own-files.js").DocketOwnFiles; // docket's installed code
 * globReaching("node_modules/do*ket/x", codeFiles, { workspace: "/ws", home: "/h" })?.what;
 * ```
 */
export function globReaching(
  raw: string,
  own: DocketOwnFiles,
  where: { readonly workspace: string; readonly home: string },
): OwnFile | undefined {
  if (!GLOB_CHARS.test(raw) || raw.length > MAX_STRING_CHARS) return undefined;
  const absolute = path.resolve(where.workspace, expandHome(raw, where.home));
  const belowWorkspace = (pattern: string) =>
    pattern.split(path.sep).length > where.workspace.split(path.sep).length;
  return globHit(absolute, own, (reach, pattern) => {
    if (reach.type === "inside") return true;
    // The folder itself or one above it inside the workspace, by a pattern with a letter in it.
    const last = pattern.split(path.sep).at(-1) ?? "";
    return belowWorkspace(pattern) && /[^*?[\]!{},]/.test(last);
  });
}

/**
 * A glob naming a folder above one of `own`'s entries (`~/.conf*`, `/h*`), other than the
 * workspace, the home folder or what holds them: the glob form of `folderAbove`.
 *
 * @example
 * ```ts
 * declare const ownFiles: import("../protect/docket-own-files.js").DocketOwnFiles;
 * globAbove("~/.conf*", ownFiles, { workspace: "/ws", home: "/h" })?.what; // "docket's user config folder"
 * ```
 */
export function globAbove(
  raw: string,
  own: DocketOwnFiles,
  where: { readonly workspace: string; readonly home: string },
): OwnFile | undefined {
  if (!GLOB_CHARS.test(raw) || raw.length > MAX_STRING_CHARS || raw.startsWith("-")) {
    return undefined;
  }
  const text = expandHome(raw.replace(/^\$\{?HOME\}?(?=\/|$)/, "~"), where.home);
  const absolute = path.resolve(where.workspace, text);
  return globHit(absolute, own, (reach, _pattern, entry) => {
    if (reach.type !== "above") return true;
    const folder = (
      entry.path.split(path.sep).slice(0, reach.depth).join(path.sep) || path.sep
    ).toLowerCase();
    const holds = (dir: string) =>
      folder === path.sep || dir === folder || dir.startsWith(`${folder}${path.sep}`);
    return !holds(where.workspace.toLowerCase()) && !holds(where.home.toLowerCase());
  });
}

/**
 * The first of `own`'s entries that a glob (absolute) reaches in a way `counts` accepts, for any
 * of its brace alternatives; with too many alternatives to look at, the first entry (fail closed).
 *
 * @example
 * ```ts
 * declare const ownFiles: import("../protect/docket-own-files.js").DocketOwnFiles;
 * globHit("/h/.config/dock?t/*", ownFiles, (reach) => reach.type !== "above");
 * ```
 */
export function globHit(
  absolute: string,
  own: DocketOwnFiles,
  counts: (reach: GlobReach, pattern: string, entry: OwnFile) => boolean,
  { dot = true }: { dot?: boolean } = {},
): OwnFile | undefined {
  const patterns = globAlternatives(absolute);
  if (patterns === undefined) return own.entries[0];
  for (const pattern of patterns) {
    for (const entry of own.entries) {
      const reach = globReach(pattern, entry.path, entry.kind, { dot });
      if (reach !== undefined && counts(reach, pattern, entry)) return entry;
    }
  }
  return undefined;
}

/**
 * One of `own`'s entries outside the workspace that `word` is, holds or may match as a glob: the
 * workspace's own entries are left to the sandbox, so `cp -r . ../backup` stays possible.
 *
 * @example
 * ```ts
 * declare const ownFiles: import("../protect/docket-own-files.js").DocketOwnFiles;
 * treeHolding("~", ownFiles, { workspace: "/ws", home: "/h" })?.what; // "docket's user config folder"
 * ```
 */
export function treeHolding(
  word: string,
  own: DocketOwnFiles,
  where: { readonly workspace: string; readonly home: string },
): OwnFile | undefined {
  if (word.length > MAX_STRING_CHARS || word.includes("\0")) return undefined;
  const text = expandHome(word.replace(/^\$\{?HOME\}?(?=\/|$)/, "~"), where.home);
  const absolute = path.resolve(where.workspace, text);
  const workspace = `${where.workspace.toLowerCase()}${path.sep}`;
  const outside = own.entries.filter((entry) => !entry.path.toLowerCase().startsWith(workspace));
  if (GLOB_CHARS.test(text)) {
    return globHit(absolute, { ...own, entries: outside }, () => true);
  }
  const lower = absolute.toLowerCase();
  return outside.find((entry) => {
    const entryPath = entry.path.toLowerCase();
    return lower === path.sep || entryPath === lower || entryPath.startsWith(`${lower}${path.sep}`);
  });
}
