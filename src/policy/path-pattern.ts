import * as path from "node:path";
import picomatch from "picomatch";
import { compileGlob, type GlobTest } from "./compile-glob.js";
import { expandHome, type ResolvedPolicyPath, realPath } from "./resolve-policy-path.js";

/** A compiled path glob. */
export interface PathPattern {
  /** The pattern as written. */
  readonly text: string;
  /**
   * Whether a resolved path matches. `allow` mode (for allow rules) never matches a relative
   * pattern against a path outside the workspace: `**` allows the workspace, not the disk.
   */
  test(target: ResolvedPolicyPath, mode?: "allow" | "restrict"): boolean;
}

const GLOB_SPECIAL = /[*?[\]{}()!+@\\]/g;
// macOS and Windows file systems ignore case by default: `.ENV` is `.env` there.
const NOCASE = process.platform === "darwin" || process.platform === "win32";

/**
 * Compile a path glob (picomatch, dotfiles included). Patterns starting with `~/` or `/` are
 * absolute and match the real absolute path; their literal prefix is itself resolved through
 * symlinks so `/tmp/**` still matches on systems where /tmp is a link. Other patterns are
 * relative: they match the path relative to the workspace when the target is inside it. For a
 * target outside the workspace, deny and ask rules (`restrict`, the default) match the absolute
 * path (so `**\/.env` catches a `.env` anywhere) while allow rules never match: allowing outside
 * the workspace takes an absolute pattern. Throws on a bad glob.
 *
 * @example
 * ```ts
 * const p = compilePathPattern("**\/.env", { home: "/home/ada" });
 * p.test({ input: "a/.env", absolute: "/ws/a/.env", relative: "a/.env" }); // true
 * ```
 */
export function compilePathPattern(text: string, options: { home: string }): PathPattern {
  const absolute = text === "~" || text.startsWith("~/") || text.startsWith("/");
  const glob = absolute ? realPrefix(expandHome(text, options.home)) : text;
  const test: GlobTest = compileGlob(glob, { dot: true, nocase: NOCASE });
  if (absolute) return { text, test: (target) => test(target.absolute) };
  return {
    text,
    test: (target, mode = "restrict") => {
      if (target.relative !== undefined) return test(target.relative);
      return mode === "restrict" && test(target.absolute);
    },
  };
}

// Resolve the literal (glob-free) leading directories of an absolute pattern through symlinks.
function realPrefix(pattern: string): string {
  const scan = picomatch.scan(pattern);
  // A base with escapes is not a plain path; leave such a pattern as written.
  if (scan.base === "" || scan.base === "/" || scan.base.includes("\\")) return pattern;
  const rest = pattern.slice(scan.base.length);
  const base = realPath(path.resolve(scan.base));
  return base.replace(GLOB_SPECIAL, "\\$&") + rest;
}
