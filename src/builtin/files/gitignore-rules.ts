import { constants } from "node:fs";
import { readFile } from "node:fs/promises";
import * as path from "node:path";
import ignore, { type Ignore } from "ignore";

/** The rules of one ignore file and the folder they apply from. */
export interface IgnoreLevel {
  /** Workspace-relative folder (`""` for the root) the patterns are relative to. */
  base: string;
  rules: Ignore;
}

/** Ignore files larger than this are not parsed (they are not hand-written). */
const MAX_IGNORE_FILE_BYTES = 1024 * 1024;

/**
 * Load the ignore rules a folder contributes: its `.gitignore`, and at the workspace root also
 * `.git/info/exclude`. Returns the levels in lowest-precedence-first order (append them to the
 * stack). `folder` is where to read them from: by default the path, or a verified handle's path
 * (`dir.entry(".")`) so that a folder swapped for a link is not read through.
 *
 * @example
 * ```ts
 * const levels = await loadIgnoreLevels("/ws", "");
 * isIgnored(levels, "node_modules", true); // true when .gitignore says node_modules/
 * ```
 */
export async function loadIgnoreLevels(
  workspaceRoot: string,
  base: string,
  folder: string = path.join(workspaceRoot, ...base.split("/").filter(Boolean)),
): Promise<IgnoreLevel[]> {
  const sources =
    base === ""
      ? [path.join(folder, ".git", "info", "exclude"), path.join(folder, ".gitignore")]
      : [path.join(folder, ".gitignore")];
  const levels: IgnoreLevel[] = [];
  for (const source of sources) {
    const text = await readSmallText(source);
    if (text !== undefined && text.trim() !== "") {
      levels.push({ base, rules: ignore().add(text) });
    }
  }
  return levels;
}

/**
 * Decide whether a workspace-relative path is ignored, git-style: the deepest ignore file with
 * a rule that matches (ignore or `!` re-include) decides; no match means not ignored.
 *
 * @example
 * ```ts
 * declare const levels: IgnoreLevel[]; // the .gitignore files from the root down
 * isIgnored(levels, "src/generated/a.ts", false);
 * ```
 */
export function isIgnored(
  levels: readonly IgnoreLevel[],
  relative: string,
  isDir: boolean,
): boolean {
  for (let i = levels.length - 1; i >= 0; i -= 1) {
    const level = levels[i];
    if (level === undefined) continue;
    if (level.base !== "" && !relative.startsWith(`${level.base}/`)) continue;
    const sub = level.base === "" ? relative : relative.slice(level.base.length + 1);
    if (sub === "") continue;
    const verdict = level.rules.test(isDir ? `${sub}/` : sub);
    if (verdict.ignored) return true;
    if (verdict.unignored) return false;
  }
  return false;
}

async function readSmallText(file: string): Promise<string | undefined> {
  try {
    // Like git, do not follow an ignore file that is a symbolic link.
    const buffer = await readFile(file, { flag: constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) });
    return buffer.length > MAX_IGNORE_FILE_BYTES ? undefined : buffer.toString("utf8");
  } catch {
    return undefined;
  }
}
