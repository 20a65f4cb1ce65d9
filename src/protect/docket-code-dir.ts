import { realpathSync } from "node:fs";
import * as path from "node:path";

/**
 * The folder of docket's own code that no tool may change: docket's installed package, unless
 * the workspace lies inside it (docket's own checkout, which its developers edit and build).
 * Installed in the project (`node_modules/docket`), it is inside the workspace the tools may
 * write, and whatever an agent wrote there would run as docket the next time.
 *
 * @example
 * ```ts
 * docketCodeDir("/ws/node_modules/docket", "/ws"); // "/ws/node_modules/docket"
 * docketCodeDir("/src/docket", "/src/docket/examples"); // undefined: a checkout being worked on
 * ```
 */
export function docketCodeDir(packageDir: string, workspace: string): string | undefined {
  const code = real(path.resolve(packageDir));
  const work = real(path.resolve(workspace));
  return within(work, code) ? undefined : code;
}

/**
 * Whether `target` (absolute) is `dir` or lies under it, names compared without case as the
 * other self-protection checks do.
 *
 * @example
 * ```ts
 * within("/ws/node_modules/docket/dist/x.js", "/ws/node_modules/docket"); // true
 * ```
 */
export function within(target: string, dir: string): boolean {
  const rel = path.relative(dir.toLowerCase(), target.toLowerCase());
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

function real(absolute: string): string {
  try {
    return realpathSync.native(absolute);
  } catch {
    return absolute;
  }
}
