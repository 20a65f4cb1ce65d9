import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

function packageDir(): string {
  for (let dir = new URL(".", import.meta.url); dir.pathname !== "/"; dir = new URL("..", dir)) {
    try {
      if (JSON.parse(readFileSync(new URL("package.json", dir), "utf8")).name === "docket")
        return fileURLToPath(dir);
    } catch {}
  }
  throw new Error("docket's package.json was not found above the bench");
}

/** The newest modification time under `dir` of the files `keep` accepts. */
function newest(dir: string, keep: (name: string) => boolean): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const at = join(dir, entry.name);
    if (entry.isDirectory()) latest = Math.max(latest, newest(at, keep));
    else if (keep(entry.name)) latest = Math.max(latest, statSync(at).mtimeMs);
  }
  return latest;
}

/**
 * The CLI as it ships: docket's root and dist/src/cli/main.js, rebuilt first (`npm run build`)
 * when older than src/ or scripts/. The cold-start benches measure this, never the unbundled
 * build: a user's process loads the bundle.
 *
 * @example
 * ```ts
 * const { root, main } = builtCli("cold");
 * ```
 */
export function builtCli(bench: string): { readonly root: string; readonly main: string } {
  const root = packageDir();
  const main = join(root, "dist/src/cli/main.js");
  const source = Math.max(
    newest(join(root, "src"), (name) => name.endsWith(".ts") && !name.endsWith(".test.ts")),
    newest(join(root, "scripts"), (name) => name.endsWith(".mjs")),
  );
  let built = 0;
  try {
    built = statSync(main).mtimeMs;
  } catch {}
  if (built < source) {
    process.stdout.write(`${bench}: dist/ is older than src/, building it first (npm run build)\n`);
    execFileSync("npm", ["run", "build"], { cwd: root, stdio: "ignore" });
  }
  return { root, main };
}

/**
 * The machine's load average now (1, 5, 15 minutes), or "unknown" where there is no /proc.
 *
 * @example
 * ```ts
 * console.log(`load average ${loadAverage()}`);
 * ```
 */
export function loadAverage(): string {
  try {
    return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  } catch {
    return "unknown";
  }
}

/**
 * CPU time (user + system, ms) of this process's children that have been waited for, from
 * /proc/self/stat (clock ticks of 10 ms): fairer than wall time on a shared machine. NaN
 * where there is no /proc.
 *
 * @example
 * ```ts
 * const before = childrenCpuMs(); // … run and wait for a child …; childrenCpuMs() - before
 * ```
 */
export function childrenCpuMs(): number {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return Number.NaN;
  }
}

/**
 * The environment of a docket process a bench starts: the bench's own, with a config folder of
 * its own in `dir` (`XDG_CONFIG_HOME`). The built CLI keeps its audit key, its digest log of
 * attestations and its caches there, so a bench never writes the user's, nor reads them.
 *
 * @example
 * ```ts
 * benchConfigEnv("/tmp/docket-bench-hook-x").XDG_CONFIG_HOME; // "/tmp/docket-bench-hook-x/config"
 * ```
 */
export function benchConfigEnv(dir: string): NodeJS.ProcessEnv {
  return { ...process.env, XDG_CONFIG_HOME: join(dir, "config") };
}
