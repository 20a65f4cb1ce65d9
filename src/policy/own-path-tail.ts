import * as path from "node:path";
import picomatch from "picomatch";
import type { DocketOwnFiles, OwnFile } from "../protect/docket-own-files.js";

// A run-time expansion docket does not know the value of: a variable, `${…}`, `$(…)`, `` `…` ``.
const EXPANSION = /\$\{[^}]*\}|\$\([^)]*\)?|\$[A-Za-z_][A-Za-z0-9_]*|\$[0-9@*#?$!-]|`[^`]*`?/g;
const GLOB = /[*?[\]{}]/;

/**
 * A word with its unknown expansions as wildcards (`*` for each): `$X/docket` → `*\/docket`.
 *
 * @example
 * ```ts
 * unknownAsGlob("$(echo ~/.con)fig/docket/policy.yaml"); // "*fig/docket/policy.yaml"
 * ```
 */
export function unknownAsGlob(word: string): string {
  return word.replace(EXPANSION, "*");
}

/** Whether a word starts with an expansion whose value may hold any folders. */
export function startsUnknown(word: string): boolean {
  return /^(\$[{(A-Za-z_0-9@*#?$!-]|`)/.test(word);
}

/**
 * The own file a relative word may name from a folder docket cannot name (`cd -`, `cd $DIR`,
 * `$XDG_CONFIG_HOME/…`): its names, two at least and one of them literal, are the last names
 * of an own path (`docket/policy.yaml`, `.config/docket/cache/code/x`, `*fig/docket/x`), or
 * go on below an own folder's last names.
 *
 * @example
 * ```ts
 * declare const own: import("../protect/docket-own-files.js").DocketOwnFiles;
 * ownTail("docket/policy.yaml", own); // the user policy, when it is ~/.config/docket/policy.yaml
 * ```
 */
export function ownTail(word: string, own: DocketOwnFiles): OwnFile | undefined {
  const parts = unknownAsGlob(word.replace(/^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?(?=\/)/, ""))
    .toLowerCase()
    .split(/[\\/]+/)
    .filter((part) => part !== "" && part !== ".");
  // With its prefix unknown, a leading pattern may stand for several folders: dropped.
  while (parts.length > 0 && GLOB.test(parts[0] as string) && parts[0]?.replace(GLOB, "") === "")
    parts.shift();
  if (parts.length < 2 || parts.includes("..")) return undefined;
  const tests = parts.map((part) =>
    GLOB.test(part)
      ? picomatch(part, { dot: true, nocase: true })
      : (name: string) => name === part,
  );
  for (const entry of own.entries) {
    const names = entry.path
      .toLowerCase()
      .split(path.sep)
      .filter((name) => name !== "");
    for (let start = 0; start < names.length; start++) {
      // The word reaches the entry's last name, and goes below it only if it is a folder.
      const along = names.length - start;
      if (parts.length < along || (parts.length > along && entry.kind !== "directory")) continue;
      let literal = false;
      let ok = true;
      for (let i = 0; i < along && ok; i++) {
        const name = names[start + i] as string;
        ok = (tests[i] as (name: string) => boolean)(name);
        if (ok && !GLOB.test(parts[i] as string)) literal = true;
      }
      if (ok && literal) return entry;
    }
  }
  return undefined;
}
