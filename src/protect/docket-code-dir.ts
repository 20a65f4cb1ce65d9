import { existsSync, lstatSync, realpathSync } from "node:fs";
import * as path from "node:path";

/**
 * The folders of code that runs as docket, which no tool may change: docket's installed package,
 * every `node_modules` folder its imports resolve from (its dependencies, the shell parser
 * among them, and the `.bin/docket` launcher), and the workspace's `node_modules` when docket is
 * linked there (`npm link`, npm workspaces, pnpm). Empty when the workspace lies inside docket's
 * package: a checkout of docket, which its developers edit and build like any project.
 * Installed in the project, all of these are inside the workspace the tools may write, and
 * whatever an agent wrote there would run as docket the next time.
 *
 * @example
 * ```ts
 * docketCodeDirs("/ws/node_modules/docket", "/ws"); // ["/ws/node_modules/docket", "/ws/node_modules"]
 * docketCodeDirs("/src/docket", "/src/docket/examples"); // []
 * ```
 */
export function docketCodeDirs(packageDir: string, workspace: string): string[] {
  const code = real(path.resolve(packageDir));
  const work = real(path.resolve(workspace));
  if (within(work, code)) return [];
  const dirs = [code];
  // Where Node looks for docket's imports: node_modules in the package and in every folder above.
  for (let dir = code; ; dir = path.dirname(dir)) {
    const modules = path.basename(dir) === "node_modules" ? dir : path.join(dir, "node_modules");
    // A linked node_modules (a worktree's, pnpm's store) is protected where it really is too.
    if (existsSync(modules)) dirs.push(modules, real(modules));
    if (path.dirname(dir) === dir) break;
  }
  // Linked into the project (the link, its `.bin` launcher and hoisted dependencies live here).
  const linked = path.join(work, "node_modules");
  if (lstatSync(path.join(linked, "docket"), { throwIfNoEntry: false }) !== undefined) {
    dirs.push(linked, real(linked));
  }
  // A folder holding the workspace is not one to freeze: the workspace is the tools' to write.
  const kept = dirs.filter((dir) => !within(work, dir));
  return [...new Set(kept)].filter(
    (dir, _, all) => !all.some((other) => other !== dir && within(dir, other)),
  );
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
