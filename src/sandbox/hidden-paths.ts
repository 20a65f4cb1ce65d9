import { statSync } from "node:fs";
import { homedir } from "node:os";
import * as path from "node:path";
import picomatch from "picomatch";
import { realOrUndefined } from "./quiet-fs.js";
import { scanDir } from "./scan-dir.js";

/** What to cover inside one sandbox: real paths, split by kind. */
export type HiddenPaths =
  | {
      readonly status: "ok";
      readonly files: string[];
      readonly dirs: string[];
      /** The real paths of the `hide` entries that exist (no glob matches): those to pin above. */
      readonly literal: string[];
    }
  | { readonly status: "too_many"; readonly problem: string };

/** Where and how far to look. */
export interface HideRequest {
  /** The workspace's real path; relative patterns are matched below it. */
  readonly workspace: string;
  readonly hide?: readonly string[];
  readonly hidePatterns?: readonly string[];
  readonly walkLimit?: number;
  readonly home?: string;
}

// Never walked into: enormous, and not where secrets live. Documented in docs/builtin-tools.md.
const SKIPPED_DIRS = new Set(["node_modules", ".git"]);
const NOCASE = process.platform === "darwin";

interface Walk {
  readonly root: string;
  readonly absolute: boolean;
  readonly globs: string[];
}

const matcherCache = new Map<string, picomatch.Matcher>();

function compiled(glob: string): picomatch.Matcher {
  let matcher = matcherCache.get(glob);
  if (matcher === undefined) {
    matcher = picomatch(glob, { dot: true, nocase: NOCASE });
    if (matcherCache.size > 1_000) matcherCache.clear();
    matcherCache.set(glob, matcher);
  }
  return matcher;
}

/**
 * Turn the hide list and the deny path globs into the real files and directories to cover.
 * Literal paths are resolved through symlinks (a link to a secret hides the secret). A glob
 * `X/**` with a literal `X` hides the directory `X` itself, so files made there later are hidden
 * too. Other globs are matched by a bounded walk from their literal base (the workspace for
 * relative ones), never into node_modules or .git; a walk that passes `walkLimit` entries
 * answers `too_many`, and the caller refuses rather than run with a secret showing.
 *
 * @example
 * ```ts
 * resolveHiddenPaths({ workspace: "/ws", hide: ["/ws/docket.yaml"], hidePatterns: ["**\/.env"] });
 * // { status: "ok", files: ["/ws/docket.yaml", "/ws/app/.env"], dirs: [] }
 * ```
 */
export function resolveHiddenPaths({
  workspace,
  hide = [],
  hidePatterns = [],
  walkLimit = 20_000,
  home = homedir(),
}: HideRequest): HiddenPaths {
  const files = new Set<string>();
  const dirs = new Set<string>();
  const literal = new Set<string>();
  const add = (candidate: string, named = false) => {
    const real = realOrUndefined(candidate);
    if (real === undefined) return;
    try {
      (statSync(real).isDirectory() ? dirs : files).add(real);
      if (named) literal.add(real);
    } catch {
      // Gone between the two calls: nothing left to hide.
    }
  };
  for (const entry of hide) add(expandHome(entry, home), true);

  const walks = new Map<string, Walk>();
  for (const pattern of hidePatterns) {
    const absolute = pattern === "~" || pattern.startsWith("~/") || pattern.startsWith("/");
    const full = absolute ? expandHome(pattern, home) : pattern;
    const scan = picomatch.scan(full);
    const literalDir = full.endsWith("/**") ? full.slice(0, -3) : undefined;
    if (!scan.isGlob) {
      add(absolute ? full : path.join(workspace, full));
    } else if (literalDir !== undefined && !picomatch.scan(literalDir).isGlob) {
      add(absolute ? literalDir : path.join(workspace, literalDir));
    } else {
      const root = absolute ? realOrUndefined(scan.base || "/") : workspace;
      if (root === undefined) continue;
      // The base was resolved through symlinks, so the glob is matched against real paths.
      const glob = absolute ? path.join(root, full.slice(scan.base.length)) : full;
      const key = `${absolute ? "abs" : "rel"}:${root}`;
      const walk = walks.get(key) ?? { root, absolute, globs: [] };
      walk.globs.push(glob);
      walks.set(key, walk);
    }
  }

  let budget = walkLimit;
  for (const { root, absolute, globs } of walks.values()) {
    const matchers = globs.map(compiled);
    const rule = {
      key: `${absolute ? "abs" : "rel"}:${root}:${globs.join("\0")}`,
      test: (subject: string) => matchers.some((match) => match(subject)),
      base: absolute ? undefined : workspace,
      skip: SKIPPED_DIRS,
    };
    const queue = [root];
    while (queue.length > 0) {
      const scan = scanDir(queue.pop() as string, rule);
      if (scan === undefined) continue;
      budget -= scan.entries;
      if (budget < 0) {
        return {
          status: "too_many",
          problem: `more than ${walkLimit} files and folders to check for paths hidden by deny rules (under ${root})`,
        };
      }
      for (const match of scan.matches) add(match);
      for (const subdir of scan.subdirs) queue.push(subdir);
    }
  }
  return { status: "ok", files: [...files], dirs: [...dirs], literal: [...literal] };
}

function expandHome(entry: string, home: string): string {
  if (entry === "~") return home;
  return entry.startsWith("~/") ? path.join(home, entry.slice(2)) : path.resolve(entry);
}
