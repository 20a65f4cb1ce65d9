import { homedir } from "node:os";
import * as path from "node:path";

/**
 * docket's cache folder across processes: `cache/` in its user config folder
 * (`$XDG_CONFIG_HOME/docket`, else `~/.config/docket`), which self-protection refuses to every
 * tool and the sandbox hides, so nothing a governed agent runs can write there. Undefined when
 * `DOCKET_CACHE=off`. The YAML parse cache and the CLI's code cache live below it.
 *
 * @example
 * ```ts
 * docketCacheDir({ HOME: "/home/me" }); // "/home/me/.config/docket/cache"
 * docketCacheDir({ DOCKET_CACHE: "off" }); // undefined
 * ```
 */
export function docketCacheDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.DOCKET_CACHE === "off") return undefined;
  const home = env.HOME || homedir();
  const configHome = env.XDG_CONFIG_HOME || path.join(home, ".config");
  return path.join(configHome, "docket", "cache");
}
