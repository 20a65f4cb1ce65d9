import { existsSync, lstatSync, readFileSync, realpathSync } from "node:fs";
import * as path from "node:path";
import { parseJson } from "../shared/parse-json.js";

// A package tree larger than this is cut: the folders found so far are still protected.
const MAX_PACKAGES = 2000;
const found = new Map<string, string[]>();

/**
 * The folders of code that runs as docket, which no tool may change: docket's installed package,
 * every package it depends on (found as Node resolves them, so its shell parser and database
 * driver too), the `.bin` folders holding its `docket` launcher, and a link to it in the
 * workspace's `node_modules` (`npm link`, npm workspaces, pnpm). Caches (`node_modules/.cache`,
 * `.vite`) and the project's other packages stay writable. Empty when the workspace lies inside
 * docket's package: a checkout of docket, which its developers edit and build like any project.
 * Installed in the project, all of these are inside the workspace the tools may write, and
 * whatever an agent wrote there would run as docket the next time. Found once per process.
 *
 * @example
 * ```ts
 * docketCodeDirs("/ws/node_modules/docket", "/ws");
 * // ["/ws/node_modules/docket", "/ws/node_modules/zod", …, "/ws/node_modules/.bin"]
 * docketCodeDirs("/src/docket", "/src/docket/examples"); // []
 * ```
 */
export function docketCodeDirs(packageDir: string, workspace: string): string[] {
  const code = real(path.resolve(packageDir));
  const work = real(path.resolve(workspace));
  const key = `${code}\0${work}`;
  const known = found.get(key);
  if (known !== undefined) return known;
  const dirs = within(work, code) ? [] : codeDirs(code, work);
  found.set(key, dirs);
  return dirs;
}

function codeDirs(code: string, work: string): string[] {
  const dirs = dependencyClosure(code);
  for (const modules of new Set([...lookupFolders(code), path.join(work, "node_modules")])) {
    if (lstatSync(path.join(modules, ".bin", "docket"), { throwIfNoEntry: false }) !== undefined) {
      dirs.push(path.join(modules, ".bin"));
    }
  }
  // A link to docket in the project: the link itself is what `import "docket"` follows.
  const link = path.join(work, "node_modules", "docket");
  if (lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink()) dirs.push(link);
  // A folder holding the workspace is not one to freeze: the workspace is the tools' to write.
  const kept = [...new Set(dirs)].filter((dir) => !within(work, dir));
  return kept.filter((dir) => !kept.some((other) => other !== dir && within(dir, other)));
}

/** docket's package and every package its `dependencies` and `peerDependencies` resolve to. */
function dependencyClosure(code: string): string[] {
  const seen = new Set([code]);
  const queue = [code];
  while (queue.length > 0 && seen.size < MAX_PACKAGES) {
    const dir = queue.shift() as string;
    const names = dependencyNames(dir);
    // Where this package's imports are looked for, found once for all of them.
    const folders = names.length === 0 ? [] : lookupFolders(dir);
    for (const name of names) {
      const at = locate(name, folders);
      if (at !== undefined && !seen.has(at)) {
        seen.add(at);
        queue.push(at);
      }
    }
  }
  return [...seen];
}

function dependencyNames(dir: string): string[] {
  try {
    const manifest = parseJson(readFileSync(path.join(dir, "package.json"), "utf8")) as {
      dependencies?: Record<string, unknown>;
      peerDependencies?: Record<string, unknown>;
    };
    return Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies });
  } catch {
    return [];
  }
}

/** Where Node finds package `name` in the `node_modules` folders `folders`, as a real path. */
function locate(name: string, folders: readonly string[]): string | undefined {
  for (const modules of folders) {
    const candidate = path.join(modules, name);
    if (existsSync(path.join(candidate, "package.json"))) return real(candidate);
  }
  return undefined;
}

/** The `node_modules` folders Node searches from `dir`, nearest first. */
function lookupFolders(dir: string): string[] {
  const folders: string[] = [];
  for (let at = dir; ; at = path.dirname(at)) {
    if (path.basename(at) !== "node_modules") {
      const modules = path.join(at, "node_modules");
      if (existsSync(modules)) folders.push(modules);
    }
    if (path.dirname(at) === at) return folders;
  }
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

/**
 * Whether docket is installed inside the workspace (its package there, or linked from its
 * `node_modules`): its own folders are then kept read-only, but Node's module search also
 * reaches folders the tools may write (`node_modules/node_modules/…`, a nearer `node_modules`),
 * so a docket for agents you do not trust belongs outside the project.
 *
 * @example
 * ```ts
 * installedInWorkspace("/ws/node_modules/docket", "/ws"); // true
 * ```
 */
export function installedInWorkspace(packageDir: string, workspace: string): boolean {
  const code = real(path.resolve(packageDir));
  const work = real(path.resolve(workspace));
  if (within(work, code)) return false;
  if (within(code, work)) return true;
  return (
    lstatSync(path.join(work, "node_modules", "docket"), { throwIfNoEntry: false }) !== undefined
  );
}
