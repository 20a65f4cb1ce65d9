import type { BuiltinContext } from "../builtin-context.js";
import { BuiltinRefusal, isBuiltinRefusal } from "../builtin-refusal.js";
import { type ResolvedPath, resolveInWorkspace } from "../workspace/resolve-in-workspace.js";
import { openVerifiedFile } from "../workspace/verified-handle.js";
import { handleLooksBinary } from "./binary-content.js";
import { compileGlob } from "./file-glob.js";
import { hiddenFile, hiddenNote, refuseOwnFile } from "./file-guard.js";
import { decodeLine, scanLines } from "./line-scanner.js";
import type { SearchFilesArgs } from "./search-files.input.js";
import { newWalkStats, walkFiles } from "./walk-files.js";

/** Settings for `search_files`. */
export interface SearchFilesOptions {
  /** Most matching lines returned. */
  maxMatches?: number;
  /** Shown text of a matching line is cut to about this many characters around the match. */
  maxLineLength?: number;
  /** Only the first this-many bytes of a line are searched. */
  maxLineBytes?: number;
  /** Larger files are skipped. */
  maxFileBytes?: number;
  /** Most directory entries looked at. */
  maxVisited?: number;
  /** Stop searching after this long and say so. */
  timeBudgetMs?: number;
}

/** One matching line. */
export interface SearchMatch {
  file: string;
  line: number;
  text: string;
}

/** What `search_files` returns. */
export interface SearchFilesResult {
  pattern: string;
  path: string;
  matches: SearchMatch[];
  /** True when the search stopped early (match cap, walk cap or time budget). */
  truncated: boolean;
  filesSearched: number;
  /** Files passed over, by reason. */
  skipped: { binary: number; tooLarge: number; unreadable: number };
  /** `file:line: text` lines plus notes, for the model. */
  text: string;
}

/**
 * Search the text files under a folder for a regular expression, line by line, skipping
 * binary, oversized and ignored files. Each file is read through a handle verified to lie in
 * the workspace; symbolic links met on the walk are not followed (their targets inside the
 * workspace are searched where they live).
 *
 * @example
 * ```ts
 * declare const ctx: import("../builtin-context.js").BuiltinContext;
 * const result = await searchFiles({ pattern: "TODO", glob: "*.ts" }, ctx);
 * result.text; // "src/a.ts:12: // TODO: remove\n…"
 * ```
 */
export async function searchFiles(
  args: SearchFilesArgs,
  ctx: BuiltinContext,
  {
    maxMatches = 200,
    maxLineLength = 300,
    maxLineBytes = 64 * 1024,
    maxFileBytes = 16 * 1024 * 1024,
    maxVisited = 200_000,
    timeBudgetMs = 30_000,
  }: SearchFilesOptions = {},
): Promise<SearchFilesResult> {
  ctx.signal.throwIfAborted();
  const regex = compileRegex(args.pattern, args.ignore_case === true);
  const globMatches = compileGlob(args.glob);
  const root = await resolveInWorkspace(ctx.workspace, args.path ?? ".", { mustExist: true });
  refuseOwnFile(ctx, root);
  const hidden = { own: 0, secret: 0 };
  const deadline = Date.now() + timeBudgetMs;
  const result: SearchFilesResult = {
    pattern: args.pattern,
    path: root.relative,
    matches: [],
    truncated: false,
    filesSearched: 0,
    skipped: { binary: 0, tooLarge: 0, unreadable: 0 },
    text: "",
  };
  let outOfTime = false;

  const searchOne = async (target: ResolvedPath): Promise<void> => {
    const handle = await openVerifiedFile(target);
    try {
      if ((await handle.stat()).size > maxFileBytes) {
        result.skipped.tooLarge += 1;
        return;
      }
      if (await handleLooksBinary(handle)) {
        result.skipped.binary += 1;
        return;
      }
      result.filesSearched += 1;
      await scanLines(
        handle,
        (line) => {
          const text = decodeLine(line.bytes, line.omittedBytes);
          const found = regex.exec(text);
          if (found !== null) {
            const shown = excerpt(text, found.index, maxLineLength);
            result.matches.push({ file: target.relative, line: line.number, text: shown });
            if (result.matches.length >= maxMatches) return "stop";
          }
          if ((line.number & 1023) === 0 && Date.now() > deadline) {
            outOfTime = true;
            return "stop";
          }
          return undefined;
        },
        { maxLineBytes, signal: ctx.signal },
      );
    } finally {
      await handle.close();
    }
  };

  const stats = newWalkStats();
  if (root.kind === "file") {
    const why = hiddenFile(ctx, root.absolute);
    if (why === undefined) await searchOne(root);
    else hidden[why] += 1;
  } else {
    const walk = walkFiles(root.workspaceRoot, root.relative, {
      maxVisited,
      signal: ctx.signal,
      startIdentity: root.identity,
      stats,
    });
    for await (const file of walk) {
      // Like ripgrep, links met on the walk are not followed: their targets are searched
      // where they live (inside) or not at all (outside). Naming a link as `path` follows it.
      if (file.kind === "symlink" || !globMatches(file.fromStart)) continue;
      try {
        const target = await resolveInWorkspace(ctx.workspace, file.absolute, { mustExist: true });
        const why = hiddenFile(ctx, target.absolute);
        if (why !== undefined) hidden[why] += 1;
        else if (target.kind === "file") await searchOne(target);
      } catch (error) {
        if (!isBuiltinRefusal(error)) throw error;
        result.skipped.unreadable += 1;
      }
      if (result.matches.length >= maxMatches || outOfTime || Date.now() > deadline) break;
    }
  }
  outOfTime ||= Date.now() > deadline;
  result.truncated = result.matches.length >= maxMatches || outOfTime || stats.cut;
  result.text = render(result, { maxMatches, outOfTime, walkCut: stats.cut });
  const note = hiddenNote(hidden);
  if (note !== undefined) result.text += `\n${note}`;
  return result;
}

function compileRegex(pattern: string, ignoreCase: boolean): RegExp {
  try {
    return new RegExp(pattern, ignoreCase ? "i" : "");
  } catch (error) {
    throw new BuiltinRefusal(
      "invalid_regex",
      `Refused the pattern: it is not a valid JavaScript regular expression (${(error as Error).message}).`,
    );
  }
}

/** A long line is shown as a window around the match so the model sees what matched. */
function excerpt(text: string, index: number, maxLength: number): string {
  const trimmed = text.trimEnd();
  if (trimmed.length <= maxLength) return trimmed;
  const start = Math.max(
    0,
    Math.min(index - Math.floor(maxLength / 3), trimmed.length - maxLength),
  );
  const body = trimmed.slice(start, start + maxLength);
  return `${start > 0 ? "…" : ""}${body}${start + maxLength < trimmed.length ? "…" : ""}`;
}

function render(
  result: SearchFilesResult,
  { maxMatches, outOfTime, walkCut }: { maxMatches: number; outOfTime: boolean; walkCut: boolean },
): string {
  const lines = result.matches.map((match) => `${match.file}:${match.line}: ${match.text}`);
  if (lines.length === 0) {
    lines.push(
      `No matches for /${result.pattern}/ in ${result.filesSearched} file(s) under '${result.path}'.`,
    );
  }
  if (result.matches.length >= maxMatches) {
    lines.push(`… stopped at ${maxMatches} matches; narrow the pattern, the folder or the glob.`);
  }
  if (outOfTime)
    lines.push("… stopped: the search ran out of time; narrow the folder or the glob.");
  if (walkCut) lines.push("… stopped: too many entries under this folder; narrow it.");
  const { binary, tooLarge } = result.skipped;
  if (binary + tooLarge > 0) {
    lines.push(`(skipped ${binary} binary and ${tooLarge} oversized file(s))`);
  }
  return lines.join("\n");
}
