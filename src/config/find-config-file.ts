import { existsSync, statSync } from "node:fs";
import * as path from "node:path";
import { DocketError } from "../errors/docket-error.js";

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

/**
 * Find docket.yaml: `--config FILE`, else `DOCKET_CONFIG`, else the first `docket.yaml` walking
 * up from `cwd` to the root (as git finds `.git`). A named file that does not exist throws
 * `config_invalid` naming where it was named; no file at all is `undefined` (defaults apply).
 *
 * @example
 * ```ts
 * findConfigFile({ cwd: "/repo/src/deep" }); // { file: "/repo/docket.yaml", via: "search" }
 * ```
 */
export function findConfigFile({
  flag,
  env = process.env,
  cwd = process.cwd(),
}: {
  flag?: string | undefined;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
} = {}): ConfigLocation | undefined {
  const named: [string | undefined, ConfigLocation["via"]][] = [
    [flag, "--config"],
    [env.DOCKET_CONFIG, "DOCKET_CONFIG"],
  ];
  for (const [value, via] of named) {
    if (value === undefined || value.trim() === "") continue;
    const file = path.resolve(cwd, value);
    if (!isFile(file)) {
      const what = via === "--config" ? `--config ${value}` : `DOCKET_CONFIG=${value}`;
      throw new DocketError(
        "config_invalid",
        `${what}: ${existsSync(file) ? "not a file" : "no such file"}`,
      );
    }
    return { file, via };
  }
  let dir = path.resolve(cwd);
  for (;;) {
    const candidate = path.join(dir, CONFIG_FILE_NAME);
    if (isFile(candidate)) return { file: candidate, via: "search" };
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}
