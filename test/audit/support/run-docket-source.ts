import { type SpawnSyncReturns, spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const main = fileURLToPath(new URL("../../../src/cli/main.ts", import.meta.url));
const tsx = import.meta.resolve("tsx");

/**
 * Run this checkout's `docket` CLI (from source, through tsx) as an auditor would, with `home`
 * as HOME and its `.config` as XDG_CONFIG_HOME, so no key or digest log of the machine's user
 * is read.
 *
 * @example
 * ```ts
 * const result = runDocketSource(["audit", "verify", "--file", "trail.jsonl"], "/tmp/home");
 * ```
 */
export function runDocketSource(args: readonly string[], home: string): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, ["--import", tsx, main, ...args], {
    encoding: "utf8",
    env: { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, ".config") },
  });
}
