import { readFileSync, realpathSync } from "node:fs";

// The sandbox looks at paths a command may have changed or removed: a file gone or unreadable is
// an answer (nothing to guard there), not an error.

/**
 * A file's text, or undefined when it cannot be read.
 *
 * @example
 * ```ts
 * readTextOrUndefined("/ws/.git/commondir"); // undefined in a main repository
 * ```
 */
export function readTextOrUndefined(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

/**
 * A path's real path, or undefined when it (or what a link names) does not exist.
 *
 * @example
 * ```ts
 * realOrUndefined("/ws/missing"); // undefined
 * ```
 */
export function realOrUndefined(file: string): string | undefined {
  try {
    return realpathSync(file);
  } catch {
    return undefined;
  }
}

/**
 * A path's real path, or the path itself when it cannot be resolved.
 *
 * @example
 * ```ts
 * realOrSelf("/ws/missing"); // "/ws/missing"
 * ```
 */
export function realOrSelf(file: string): string {
  return realOrUndefined(file) ?? file;
}
