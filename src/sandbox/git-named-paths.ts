import * as path from "node:path";
import type { GitConfigEntry } from "./git-config-file.js";

/** Where a configuration's relative paths are taken from. */
export interface GitPathBase {
  /** The folder of the configuration file: `include.path` is relative to it. */
  readonly configDir: string;
  /** The repository's working tree: hooks and programs run there. */
  readonly worktree: string;
  readonly home: string;
}

/** The files a configuration makes git load or run. */
export interface GitNamedPaths {
  /** Other configuration files (`include.path`, `includeIf.*.path`), to be read in turn. */
  readonly includes: string[];
  /** Hook folders, attribute files and programs: kept read-only like the configuration. */
  readonly loaded: string[];
}

// Keys whose value is a command git (or a program git starts) runs: every word of it that names
// a file is a file that runs later, outside the sandbox.
const PROGRAM_KEY =
  /^(alias\..+|filter\..+\.(clean|smudge|process)|diff\..+\.(textconv|command)|merge\..+\.driver|core\.(fsmonitor|editor|pager|sshcommand|askpass|gitproxy)|sequence\.editor|gpg(\..+)?\.program|credential(\..+)?\.helper|pager\..+|interactive\.difffilter|(diff|merge)tool\..+\.(cmd|path)|uploadpack\.packobjectshook|receive\.procreceiverefs|tar\..+\.command|hook\..+\.command|core\.hookspath|core\.attributesfile)$/;
const BOOLEAN = /^(true|false|yes|no|on|off|1|0)$/i;

function expand(word: string, base: string, home: string): string {
  if (word === "~") return home;
  if (word.startsWith("~/")) return path.join(home, word.slice(2));
  return path.resolve(base, word);
}

// The words of a command line that may name a file: the first (the program), and any with a
// slash in it. Quotes are dropped; what a shell would make of the rest does not matter here.
function fileWords(command: string): string[] {
  const words = command
    .replace(/^!/, "")
    .split(/\s+/)
    .map((word) => word.replace(/^['"]|['"]$/g, ""))
    .filter((word) => word !== "");
  return words.filter((word, index) => index === 0 || word.includes("/"));
}

/**
 * The paths one git configuration file names that git will load or run: included files, the
 * hooks path (a husky `.husky/_` brings its parent, whose scripts its hooks run), the attributes
 * file, and the files in the commands git runs (aliases, filters, diff and merge drivers,
 * fsmonitor, editors, credential helpers, …). Relative names are resolved as git resolves them.
 *
 * @example
 * ```ts
 * import { parseGitConfig } from "./git-config-file.js";
 * gitNamedPaths(parseGitConfig("[core]\nhooksPath = .husky/_\n"), { configDir: "/ws/.git", worktree: "/ws", home: "/home/u" });
 * // { includes: [], loaded: ["/ws/.husky/_", "/ws/.husky"] }
 * ```
 */
export function gitNamedPaths(
  entries: readonly GitConfigEntry[],
  { configDir, worktree, home }: GitPathBase,
): GitNamedPaths {
  const includes: string[] = [];
  const loaded: string[] = [];
  for (const { name, section, key, value } of entries) {
    if (value === undefined || value === "") continue;
    if ((section === "include" || section === "includeif") && key === "path") {
      includes.push(expand(value, configDir, home));
      continue;
    }
    if (!PROGRAM_KEY.test(name)) continue;
    if (name === "core.fsmonitor" && BOOLEAN.test(value)) continue;
    if (name === "core.hookspath" || name === "core.attributesfile") {
      const file = expand(value, worktree, home);
      loaded.push(file);
      if (name === "core.hookspath" && path.basename(file) === "_") loaded.push(path.dirname(file));
      continue;
    }
    for (const word of fileWords(value)) {
      // A bare program name is found on PATH, outside the workspace; `./x` or `x/y` is a file.
      if (!word.includes("/") && !word.startsWith("~")) continue;
      loaded.push(expand(word, worktree, home));
    }
  }
  return { includes, loaded };
}
