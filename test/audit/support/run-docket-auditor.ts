import { type SpawnSyncReturns, spawnSync } from "node:child_process";
import { join } from "node:path";
import { installedCliPath, useInstalledCli } from "../../support/installed-cli.js";

// The installed CLI, installed before each file's tests start.
useInstalledCli();

/**
 * Run the installed `docket` CLI (test/support/installed-cli.ts, what `npm pack` ships) as an
 * auditor would, with `home` as HOME and its `.config` as XDG_CONFIG_HOME, so no key or digest
 * log of the machine's user is read.
 *
 * @example
 * ```ts
 * const result = runDocketAuditor(["audit", "verify", "--file", "trail.jsonl"], "/tmp/home");
 * ```
 */
export function runDocketAuditor(args: readonly string[], home: string): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [installedCliPath(), ...args], {
    encoding: "utf8",
    env: { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, ".config") },
  });
}
