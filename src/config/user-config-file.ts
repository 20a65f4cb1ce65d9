import * as path from "node:path";

/**
 * The user layer of docket's configuration: `$XDG_CONFIG_HOME/docket/config.yaml`, else
 * `~/.config/docket/config.yaml`. Its own module: the hook's daemon client names it without
 * loading the configuration code.
 *
 * @example
 * ```ts
 * userConfigFile({ HOME: "/home/ada" }); // "/home/ada/.config/docket/config.yaml"
 * ```
 */
export function userConfigFile(env: NodeJS.ProcessEnv = process.env): string {
  // node:os only when HOME is unset: the hook's client, which names this file, loads nothing more.
  const home = env.HOME || process.getBuiltinModule("node:os").homedir();
  return path.join(env.XDG_CONFIG_HOME || path.join(home, ".config"), "docket", "config.yaml");
}
