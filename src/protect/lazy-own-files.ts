import type { DocketOwnFiles } from "./docket-own-files.js";

/**
 * Own files found only when first asked about: for a set that costs a walk to find (docket's
 * installed packages), which most runs, reading only, never need.
 *
 * @example
 * ```ts
 * import { docketCodeDirs } from "./docket-code-dir.js";
 * import { docketOwnFiles } from "./docket-own-files.js";
 * const toDir = (dir: string) => ({ path: dir, what: "docket's code" });
 * // Nothing is read from disk until the first lookup.
 * const code = lazyOwnFiles(() => docketOwnFiles({ directories: docketCodeDirs("/opt/docket", "/ws").map(toDir) }));
 * ```
 */
export function lazyOwnFiles(build: () => DocketOwnFiles): DocketOwnFiles {
  let built: DocketOwnFiles | undefined;
  const own = () => {
    built ??= build();
    return built;
  };
  return {
    get entries() {
      return own().entries;
    },
    get cwd() {
      return own().cwd;
    },
    find: (target, memo) => own().find(target, memo),
  };
}
