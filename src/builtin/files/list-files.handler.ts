import type { BuiltinContext } from "../builtin-context.js";
import { resolveInWorkspace } from "../workspace/resolve-in-workspace.js";
import { compileGlob } from "./file-glob.js";
import { hiddenFile, hiddenNote, refuseOwnFile } from "./file-guard.js";
import type { ListFilesArgs } from "./list-files.input.js";
import { newWalkStats, walkFiles } from "./walk-files.js";

/** Settings for `list_files`. */
export interface ListFilesOptions {
  /** Most paths returned. */
  maxEntries?: number;
  /** Most directory entries looked at before the walk gives up. */
  maxVisited?: number;
}

/** What `list_files` returns. */
export interface ListFilesResult {
  /** Workspace-relative folder that was listed. */
  path: string;
  /** The glob used, or null for all files. */
  pattern: string | null;
  /** Workspace-relative file paths, in walk order (sorted by name, folder by folder). */
  entries: string[];
  /** Files that matched, including those beyond `maxEntries` (a lower bound if `walkCut`). */
  totalMatched: number;
  /** True when matches were left out. */
  truncated: boolean;
  /** True when the walk stopped at `maxVisited` entries. */
  walkCut: boolean;
  /** One path per line plus notes, for the model. */
  text: string;
}

/**
 * List files under a folder in the workspace, matching an optional glob, skipping `.git` and
 * whatever `.gitignore` files exclude.
 *
 * @example
 * ```ts
 * declare const ctx: import("../builtin-context.js").BuiltinContext;
 * const result = await listFiles({ path: "src", pattern: "*.ts" }, ctx);
 * result.entries; // ["src/a.ts", "src/lib/b.ts"]
 * ```
 */
export async function listFiles(
  args: ListFilesArgs,
  ctx: BuiltinContext,
  { maxEntries = 1000, maxVisited = 200_000 }: ListFilesOptions = {},
): Promise<ListFilesResult> {
  ctx.signal.throwIfAborted();
  const matches = compileGlob(args.pattern);
  const target = await resolveInWorkspace(ctx.workspace, args.path ?? ".", { mustExist: true });
  refuseOwnFile(ctx, target);
  const hidden = { own: 0, secret: 0 };
  const entries: string[] = [];
  let totalMatched = 0;
  const stats = newWalkStats();
  if (target.kind === "directory") {
    const walk = walkFiles(target.workspaceRoot, target.relative, {
      maxVisited,
      signal: ctx.signal,
      startIdentity: target.identity,
      stats,
    });
    for await (const file of walk) {
      if (!matches(file.fromStart)) continue;
      const why = hiddenFile(ctx, file.absolute);
      if (why !== undefined) {
        hidden[why] += 1;
        continue;
      }
      totalMatched += 1;
      if (entries.length < maxEntries) entries.push(file.relative);
    }
  } else if (hiddenFile(ctx, target.absolute) === "secret") {
    hidden.secret += 1;
  } else if (matches(target.relative.split("/").at(-1) ?? "")) {
    totalMatched = 1;
    entries.push(target.relative);
  }
  const result: ListFilesResult = {
    path: target.relative,
    pattern: args.pattern ?? null,
    entries,
    totalMatched,
    truncated: totalMatched > entries.length,
    walkCut: stats.cut,
    text: "",
  };
  const notes: string[] = [];
  if (entries.length === 0) {
    notes.push(
      `No files${args.pattern === undefined ? "" : ` match '${args.pattern}'`} under '${target.relative}'.`,
    );
  }
  if (result.truncated) {
    notes.push(
      `… ${totalMatched - entries.length} more not shown (${totalMatched} matched); narrow the folder or the pattern.`,
    );
  }
  if (stats.cut) {
    notes.push(
      `… stopped after looking at ${maxVisited} entries; there may be more matches. Narrow the folder.`,
    );
  }
  if (stats.startIgnored) {
    notes.push(
      `(note: '${target.relative}' is ignored by .gitignore; listed because it was asked for)`,
    );
  }
  const note = hiddenNote(hidden);
  if (note !== undefined) notes.push(note);
  result.text = [...entries, ...notes].join("\n");
  return result;
}
