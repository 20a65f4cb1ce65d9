import { DocketError } from "../errors/docket-error.js";
import { type ConfigLocation, locateConfigFile } from "./locate-config-file.js";

export {
  CONFIG_FILE_NAME,
  type ConfigLocation,
  type ConfigLookup,
  locateConfigFile,
} from "./locate-config-file.js";

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
export function findConfigFile(
  options: { flag?: string | undefined; env?: NodeJS.ProcessEnv; cwd?: string } = {},
): ConfigLocation | undefined {
  const lookup = locateConfigFile(options);
  switch (lookup.status) {
    case "found":
      return lookup.location;
    case "none":
      return undefined;
    case "missing":
      throw new DocketError("config_invalid", lookup.message);
  }
}
