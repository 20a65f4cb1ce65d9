import * as path from "node:path";
import type { ShellAnalysis } from "./shell/shell-analysis.js";

/** A folder docket cannot name: `cd -`, `popd`, `cd "$DIR"`, `cd $(…)`. */
export const UNKNOWN_BASE = "\0unknown";

/** Where a script's commands run, as far as docket can tell. */
export interface FolderBases {
  /**
   * The folders a word may be read in: where the script starts (`""`), each folder it changes
   * to (taken one after another and on their own), `UNKNOWN_BASE` for one docket cannot name.
   */
  readonly bases: readonly string[];
  /** Per command of the analysis: the folder it runs in (`""` the start, `UNKNOWN_BASE`). */
  readonly dirs: readonly string[];
  /** False once the script assigns `HOME` (`HOME=x cd`, `export HOME=…`): `~` is then unknown. */
  readonly homeKnown: boolean;
}

const MAX_BASES = 16;
// Programs whose option names the folder they work in (`env -C ~`, `git -C ~`, `tar -C ~`).
const DIR_OPTIONS: Readonly<Record<string, { short: readonly string[]; long: readonly string[] }>> =
  {
    env: { short: ["-C"], long: ["--chdir"] },
    git: { short: ["-C"], long: [] },
    tar: { short: ["-C"], long: ["--directory"] },
    bsdtar: { short: ["-C"], long: ["--directory"] },
    gtar: { short: ["-C"], long: ["--directory"] },
    make: { short: ["-C"], long: ["--directory"] },
    unzip: { short: ["-d"], long: [] },
    cpio: { short: ["-D"], long: ["--directory"] },
  };

/**
 * A folder word as the shell reads it: `~`, `$HOME` and `${HOME}` are the home folder; one
 * with any other expansion (a variable docket does not know, `$(…)`, `` `…` ``) is unknown.
 *
 * @example
 * ```ts
 * folderWord("$HOME/src", "/home/ada"); // "/home/ada/src"
 * folderWord("$DIR", "/home/ada"); // UNKNOWN_BASE
 * ```
 */
export function folderWord(word: string, home: string): string {
  const text = word.replace(/^(~|\$\{?HOME\}?)(?=\/|$)/, home).replace(/^~\+(?=\/|$)/, ".");
  // `~user`, `~-` (the last folder), `-` and `+N` (the folder stack) are not known either.
  if (text.startsWith(UNKNOWN_BASE) || /[$`]/.test(text) || /^(~|-$|[+-]\d)/.test(text))
    return UNKNOWN_BASE;
  return text;
}

/**
 * The folders a script's commands run in: after `cd`/`pushd` (bare: the home folder; `cd -`,
 * `popd` or a target with an unknown expansion: unknown), and a command's own folder option
 * (`env -C`, `git -C`, `tar -C`, `make -C`, `unzip -d`).
 *
 * @example
 * ```ts
 * import { loadShellParser } from "./shell/shell-parser.js";
 * const parser = await loadShellParser();
 * folderBases(parser.analyse("cd ~ && cp x y"), "/home/ada", "cd ~ && cp x y").bases; // ["", "/home/ada"]
 * ```
 */
export function folderBases(
  analysis: ShellAnalysis | undefined,
  knownHome: string,
  script = "",
): FolderBases {
  // Assignments before a command may not be in its text: the whole script is read too.
  const texts = [script, ...(analysis?.commands ?? []).map((command) => command.text)];
  const assigns = texts.some((text) =>
    /(^|[\s;&|(])(export\s+|declare\s+|typeset\s+|local\s+|readonly\s+)?(-\w+\s+)*HOME\+?=/.test(
      text,
    ),
  );
  const home = assigns ? UNKNOWN_BASE : knownHome;
  // `CDPATH` and `shopt -s cdable_vars` make `cd name` go elsewhere than `./name`.
  const cdElsewhere =
    texts.some((text) => /CDPATH|shopt/.test(text)) ||
    (analysis?.commands ?? []).some((command) => path.posix.basename(command.program) === "shopt");
  const bases = [""];
  const dirs: string[] = [];
  let current = "";
  const join = (target: string) => {
    if (target === UNKNOWN_BASE || current === UNKNOWN_BASE) return UNKNOWN_BASE;
    return path.isAbsolute(target) ? target : path.join(current, target);
  };
  for (const command of analysis?.commands ?? []) {
    const name = path.posix.basename(command.program);
    const args = command.argv.slice(1);
    if (name === "cd" || name === "pushd" || name === "popd") {
      const target = args.find((word) => !word.startsWith("-") || /^-(\d*)$/.test(word));
      const word =
        name === "popd" || (cdElsewhere && target !== undefined && !path.isAbsolute(target))
          ? UNKNOWN_BASE
          : target === undefined
            ? home
            : folderWord(target, home);
      current = join(word);
      bases.push(current, word);
      dirs.push(current);
      continue;
    }
    const option = optionDir(name, args);
    const dir = option === undefined ? current : join(folderWord(option, home));
    if (option !== undefined) bases.push(dir);
    dirs.push(dir);
  }
  const unique = [...new Set(bases)];
  // Past the bound, an unknown folder stands for the rest.
  const kept =
    unique.length > MAX_BASES ? [...unique.slice(0, MAX_BASES - 1), UNKNOWN_BASE] : unique;
  return { bases: kept, dirs, homeKnown: !assigns };
}

function optionDir(name: string, args: readonly string[]): string | undefined {
  const options = DIR_OPTIONS[name];
  if (options === undefined) return undefined;
  let found: string | undefined;
  for (const [i, arg] of args.entries()) {
    if (options.short.includes(arg) || options.long.includes(arg)) found = args[i + 1] ?? found;
    else if (options.short.some((short) => arg.startsWith(short) && arg.length > short.length))
      found = arg.slice(2);
    else {
      const long = options.long.find((option) => arg.startsWith(`${option}=`));
      if (long !== undefined) found = arg.slice(long.length + 1);
    }
  }
  return found;
}
