import type { BigIntStats } from "node:fs";
import { lstat, realpath } from "node:fs/promises";
import { homedir } from "node:os";
import * as path from "node:path";
import { DocketError } from "../../errors/docket-error.js";
import { BuiltinRefusal } from "../builtin-refusal.js";

/** Device and inode of a file: what "the same file" means when a path may have been swapped. */
export interface FileIdentity {
  dev: bigint;
  ino: bigint;
}

/** Where a path argument lands once it has been jailed to the workspace. */
export interface ResolvedPath {
  /** The argument as the model gave it. */
  input: string;
  /** Real path of the workspace root (symlinks resolved). */
  workspaceRoot: string;
  /** Real absolute path of the target; for a missing target, its deepest real ancestor plus the missing rest. */
  absolute: string;
  /** Path relative to the workspace root with `/` separators; `.` for the root itself. */
  relative: string;
  /** What is at the path right now. */
  kind: "file" | "directory" | "other" | "missing";
  /** Identity of the target at resolve time; absent when missing. */
  identity?: FileIdentity;
  /** Deepest ancestor that exists (real path); equals `absolute` when the target exists. */
  existingAncestor: string;
  /** Path components below `existingAncestor` that do not exist yet. */
  missing: string[];
}

/** How strict to be about the target. */
export interface ResolveOptions {
  /** Refuse when nothing exists at the path. */
  mustExist?: boolean;
  /** The caller will write the path: refuse the workspace root and directories. */
  forWrite?: boolean;
}

/** Linux PATH_MAX; longer inputs are refused before touching the file system. */
export const MAX_PATH_LENGTH = 4096;
/** Longest single component most file systems accept (NAME_MAX, in bytes). */
export const MAX_NAME_BYTES = 255;

/**
 * Whether `candidate` (absolute, normalised) is `root` or lies below it.
 *
 * @example
 * ```ts
 * isInside("/ws", "/ws/a/b"); // true
 * isInside("/ws", "/ws-other"); // false
 * ```
 */
export function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/**
 * Resolve a path argument to a real path inside the workspace, or refuse.
 *
 * `~` expands to the home directory, relative paths resolve against the workspace, `..` is
 * normalised, and the deepest existing ancestor is realpath'd so that a symlink anywhere in the
 * path is followed before the containment check. This is the check half of check-then-use:
 * handlers then open through `openVerifiedFile` / `openVerifiedDirectory`, which re-verify the
 * opened handle so a path swapped after this call cannot slip through.
 *
 * @example
 * ```ts
 * const target = await resolveInWorkspace("/ws", "src/../README.md", { mustExist: true });
 * target.relative; // "README.md"
 * await resolveInWorkspace("/ws", "../etc/passwd"); // throws BuiltinRefusal("outside_workspace")
 * ```
 */
export async function resolveInWorkspace(
  workspace: string,
  inputPath: string,
  { mustExist = false, forWrite = false }: ResolveOptions = {},
): Promise<ResolvedPath> {
  checkSyntax(inputPath);
  const workspaceRoot = await realWorkspaceRoot(workspace);
  const lexical = path.resolve(workspace, expandHome(inputPath));
  const { real, missing } = await realpathOfDeepestAncestor(inputPath, lexical);
  const absolute = missing.length === 0 ? real : path.join(real, ...missing);

  if (!isInside(workspaceRoot, absolute)) {
    const viaLink = isInside(path.resolve(workspace), lexical) ? " through a symbolic link" : "";
    throw new BuiltinRefusal(
      "outside_workspace",
      `Refused '${inputPath}': it resolves${viaLink} to '${absolute}', which is outside the workspace '${workspaceRoot}'. Only paths inside the workspace can be used.`,
    );
  }

  const resolved: ResolvedPath = {
    input: inputPath,
    workspaceRoot,
    absolute,
    relative: toRelative(workspaceRoot, absolute),
    kind: "missing",
    existingAncestor: real,
    missing,
  };
  if (missing.length === 0) {
    const stats = await lstat(absolute, { bigint: true });
    resolved.kind = kindOf(stats);
    resolved.identity = { dev: stats.dev, ino: stats.ino };
  } else {
    await refuseBrokenAncestry(inputPath, real, missing);
  }

  if (mustExist && resolved.kind === "missing") {
    throw new BuiltinRefusal(
      "not_found",
      `Nothing exists at '${inputPath}' (looked for '${resolved.relative}' in the workspace).`,
    );
  }
  if (forWrite && resolved.relative === ".") {
    throw new BuiltinRefusal("is_directory", `Refused '${inputPath}': it is the workspace root.`);
  }
  if (forWrite && resolved.kind === "directory") {
    throw new BuiltinRefusal(
      "is_directory",
      `Refused '${inputPath}': it is a directory, not a file.`,
    );
  }
  return resolved;
}

/**
 * A workspace-relative display form of an absolute path inside the workspace.
 *
 * @example
 * ```ts
 * toRelative("/ws", "/ws/src/a.ts"); // "src/a.ts"
 * ```
 */
export function toRelative(workspaceRoot: string, absolute: string): string {
  const rel = path.relative(workspaceRoot, absolute);
  return rel === "" ? "." : rel.split(path.sep).join("/");
}

function checkSyntax(inputPath: string): void {
  if (inputPath.includes("\0")) {
    throw new BuiltinRefusal(
      "invalid_path",
      "Refused a path containing a NUL byte: paths cannot contain NUL characters.",
    );
  }
  if (inputPath.length > MAX_PATH_LENGTH) {
    throw new BuiltinRefusal(
      "path_too_long",
      `Refused a path of ${inputPath.length} characters: the limit is ${MAX_PATH_LENGTH}.`,
    );
  }
  const longName = inputPath
    .split(/[\\/]/)
    .find((part) => Buffer.byteLength(part) > MAX_NAME_BYTES);
  if (longName !== undefined) {
    throw new BuiltinRefusal(
      "path_too_long",
      `Refused the path: one of its names is ${Buffer.byteLength(longName)} bytes long; the limit is ${MAX_NAME_BYTES}.`,
    );
  }
  if (/^~[^/\\]/.test(inputPath)) {
    throw new BuiltinRefusal(
      "invalid_path",
      `Refused '${inputPath}': '~user' paths are not supported; use a path inside the workspace.`,
    );
  }
}

function expandHome(inputPath: string): string {
  if (inputPath === "~") return homedir();
  if (inputPath.startsWith("~/")) return path.join(homedir(), inputPath.slice(2));
  return inputPath === "" ? "." : inputPath;
}

async function realWorkspaceRoot(workspace: string): Promise<string> {
  try {
    return await realpath(workspace);
  } catch (error) {
    throw new DocketError("workspace_missing", `The workspace '${workspace}' does not exist.`, {
      cause: error,
    });
  }
}

async function realpathOfDeepestAncestor(
  inputPath: string,
  lexical: string,
): Promise<{ real: string; missing: string[] }> {
  const missing: string[] = [];
  let current = lexical;
  for (;;) {
    try {
      return { real: await realpath(current), missing };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") {
        const parent = path.dirname(current);
        if (parent === current) throw error;
        missing.unshift(path.basename(current));
        current = parent;
        continue;
      }
      if (code === "ELOOP") {
        throw new BuiltinRefusal(
          "symlink_loop",
          `Refused '${inputPath}': it goes through a loop of symbolic links.`,
        );
      }
      if (code === "ENAMETOOLONG") {
        throw new BuiltinRefusal("path_too_long", `Refused '${inputPath}': the path is too long.`);
      }
      throw error;
    }
  }
}

/** A missing tail is only creatable under a real directory, and never through a dangling link. */
async function refuseBrokenAncestry(
  inputPath: string,
  ancestor: string,
  missing: string[],
): Promise<void> {
  const ancestorStats = await lstat(ancestor);
  if (!ancestorStats.isDirectory()) {
    throw new BuiltinRefusal(
      "not_a_directory",
      `Refused '${inputPath}': '${ancestor}' is a file, so nothing can exist below it.`,
    );
  }
  const first = missing[0] ?? "";
  const firstStats = await lstat(path.join(ancestor, first)).catch(() => undefined);
  if (firstStats?.isSymbolicLink()) {
    throw new BuiltinRefusal(
      "dangling_symlink",
      `Refused '${inputPath}': '${first}' is a symbolic link whose target does not exist; it will not be followed.`,
    );
  }
}

function kindOf(stats: BigIntStats): ResolvedPath["kind"] {
  if (stats.isFile()) return "file";
  if (stats.isDirectory()) return "directory";
  return "other";
}
