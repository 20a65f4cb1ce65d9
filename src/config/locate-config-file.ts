import type * as Fs from "node:fs";
import * as path from "node:path";

// node:fs as CommonJS gives it: an ESM import of it evaluates every export, and with them
// fs/promises, readline and the REPL's history (11 of Node's own modules, about 0.7 ms of a
// hook call the daemon client in the launcher answers). A Node without it loads this module
// all the same, so that the launcher can refuse that Node in words (the call denied).
const { existsSync, statSync } = process.getBuiltinModule?.("node:fs") ?? ({} as typeof Fs);

/** Where docket.yaml was found, and by which rule. */
export interface ConfigLocation {
  /** Absolute path of the file. */
  readonly file: string;
  /** `--config`, `DOCKET_CONFIG`, or `search` (found walking up from the working directory). */
  readonly via: "--config" | "DOCKET_CONFIG" | "search";
}

/** The name docket looks for in each folder, as git looks for `.git`. */
export const CONFIG_FILE_NAME = "docket.yaml";

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** What `locateConfigFile` found: the file, none at all, or a named file that is missing. */
export type ConfigLookup =
  | { readonly status: "found"; readonly location: ConfigLocation }
  | { readonly status: "none" }
  | { readonly status: "missing"; readonly message: string };

/**
 * Find docket.yaml as `findConfigFile` does, without throwing: a named file that does not exist is
 * `missing` with the words `findConfigFile` throws. Its own function so that the hook's thin
 * client, which loads no error classes, names the same file every command reads.
 *
 * @example
 * ```ts
 * locateConfigFile({ cwd: "/repo/src/deep" }); // { status: "found", location: { file: "/repo/docket.yaml", via: "search" } }
 * ```
 */
export function locateConfigFile({
  flag,
  env = process.env,
  cwd = process.cwd(),
}: {
  flag?: string | undefined;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
} = {}): ConfigLookup {
  const named: [string | undefined, ConfigLocation["via"]][] = [
    [flag, "--config"],
    [env.DOCKET_CONFIG, "DOCKET_CONFIG"],
  ];
  for (const [value, via] of named) {
    if (value === undefined || value.trim() === "") continue;
    const file = path.resolve(cwd, value);
    if (!isFile(file)) {
      const what = via === "--config" ? `--config ${value}` : `DOCKET_CONFIG=${value}`;
      return {
        status: "missing",
        message: `${what}: ${existsSync(file) ? "not a file" : "no such file"}`,
      };
    }
    return { status: "found", location: { file, via } };
  }
  let dir = path.resolve(cwd);
  for (;;) {
    const candidate = path.join(dir, CONFIG_FILE_NAME);
    if (isFile(candidate)) return { status: "found", location: { file: candidate, via: "search" } };
    const parent = path.dirname(dir);
    if (parent === dir) return { status: "none" };
    dir = parent;
  }
}
