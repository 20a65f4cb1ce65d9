import { realpathSync } from "node:fs";
import * as path from "node:path";

/** A path argument as path rules see it: where it really points. */
export interface ResolvedPolicyPath {
  /** The argument as the model gave it. */
  readonly input: string;
  /** Real absolute path, `/`-separated: symlinks of the deepest existing ancestor resolved. */
  readonly absolute: string;
  /** Relative to the real workspace root (`.` for the root itself); undefined when outside it. */
  readonly relative: string | undefined;
}

/** Where relative paths and `~` point. */
export interface PathContext {
  /** The workspace as configured (relative arguments resolve against it). */
  readonly workspace: string;
  /** The workspace's real path (see `realPath`). */
  readonly workspaceReal: string;
  /** The home directory `~` expands to. */
  readonly home: string;
}

/**
 * Expand a leading `~` or `~/` to the home directory; anything else is returned as is.
 *
 * @example
 * ```ts
 * expandHome("~/.ssh/id_rsa", "/home/ada"); // "/home/ada/.ssh/id_rsa"
 * ```
 */
export function expandHome(input: string, home: string): string {
  if (input === "~") return home;
  if (input.startsWith("~/")) return path.join(home, input.slice(2));
  return input;
}

/**
 * The real path of `absolute`: realpath of its deepest existing ancestor plus the missing rest,
 * so a file about to be created under a symlinked directory is judged where it will land.
 *
 * @example
 * ```ts
 * realPath("/ws/link-to-home/.ssh/new_key"); // "/home/ada/.ssh/new_key"
 * ```
 */
export function realPath(absolute: string): string {
  const missing: string[] = [];
  let current = absolute;
  for (;;) {
    try {
      const real = realpathSync.native(current);
      return toPosix(missing.length === 0 ? real : path.join(real, ...missing.reverse()));
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return toPosix(absolute);
      missing.push(path.basename(current));
      current = parent;
    }
  }
}

/**
 * Resolve a path argument the way the file tools do: `~` expanded, relative to the workspace,
 * `..` normalised lexically, then symlinks resolved on the deepest existing ancestor. The result
 * is what path rules match, so `src/../.env` and a link to `~/.ssh/id_rsa` are judged for what
 * they really are.
 *
 * @example
 * ```ts
 * const ctx = { workspace: "/ws", workspaceReal: "/ws", home: "/home/ada" };
 * resolvePolicyPath("src/../.env", ctx); // { input, absolute: "/ws/.env", relative: ".env" }
 * ```
 */
export function resolvePolicyPath(input: string, context: PathContext): ResolvedPolicyPath {
  const lexical = path.resolve(context.workspace, expandHome(input, context.home));
  const absolute = realPath(lexical);
  const rel = path.posix.relative(context.workspaceReal, absolute);
  const inside =
    rel === "" || (rel !== ".." && !rel.startsWith("../") && !path.posix.isAbsolute(rel));
  return { input, absolute, relative: inside ? (rel === "" ? "." : rel) : undefined };
}

function toPosix(p: string): string {
  return path.sep === "/" ? p : p.split(path.sep).join("/");
}
