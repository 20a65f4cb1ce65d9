import type { BuiltinContext } from "../builtin-context.js";
import { BuiltinRefusal } from "../builtin-refusal.js";
import { writeFileAtomic } from "../workspace/atomic-write.effect.js";
import { type ResolvedPath, resolveInWorkspace } from "../workspace/resolve-in-workspace.js";
import { openVerifiedFile } from "../workspace/verified-handle.js";
import { looksBinary, SNIFF_BYTES } from "./binary-content.js";
import { unifiedDiffOfEdit } from "./edit-diff.js";
import type { EditFileArgs } from "./edit-file.input.js";
import { refuseOwnFile } from "./file-guard.js";
import { refuseMetadataWrite } from "./version-control-path.js";

/** Settings for `edit_file`. */
export interface EditFileOptions {
  /** Largest file that can be edited, in bytes. */
  maxFileBytes?: number;
  /** The returned diff is cut beyond this many characters. */
  maxDiffChars?: number;
}

/** What `edit_file` returns. */
export interface EditFileResult {
  /** Workspace-relative path edited. */
  path: string;
  /** 1-based line where the replaced text started. */
  line: number;
  /** Unified diff of the change (possibly cut; see `text`). */
  diff: string;
  /** A sentence and the diff, for the model. */
  text: string;
}

/**
 * Replace one exact, unique occurrence of a string in a workspace file and write the result
 * atomically. Refuses when the string is missing or occurs more than once (saying how often and
 * where), so an edit never lands somewhere the model did not mean. A file with CRLF line
 * endings also accepts an `old_string` written with plain `\n`.
 *
 * @example
 * ```ts
 * declare const ctx: import("../builtin-context.js").BuiltinContext;
 * const result = await editFile({ path: "a.ts", old_string: "x = 1", new_string: "x = 2" }, ctx);
 * result.diff; // "--- a/a.ts\n+++ b/a.ts\n@@ -1,1 +1,1 @@\n-x = 1\n+x = 2\n"
 * ```
 */
export async function editFile(
  args: EditFileArgs,
  ctx: BuiltinContext,
  { maxFileBytes = 10 * 1024 * 1024, maxDiffChars = 64 * 1024 }: EditFileOptions = {},
): Promise<EditFileResult> {
  ctx.signal.throwIfAborted();
  if (args.old_string === "") {
    throw new BuiltinRefusal(
      "empty_old_string",
      "Refused: old_string is empty. Use write_file to create a file or replace all of it.",
    );
  }
  if (args.old_string === args.new_string) {
    throw new BuiltinRefusal("no_change", "Refused: old_string and new_string are identical.");
  }
  const target = await resolveInWorkspace(ctx.workspace, args.path, {
    mustExist: true,
    forWrite: true,
  });
  refuseOwnFile(ctx, target);
  refuseMetadataWrite(ctx, target, "edit_file");
  const before = await readText(target, maxFileBytes);
  let oldString = args.old_string;
  let newString = args.new_string;
  let found = occurrences(before, oldString);
  if (found.length === 0 && before.includes("\r\n") && !oldString.includes("\r\n")) {
    oldString = oldString.replace(/\r?\n/g, "\r\n");
    newString = newString.replace(/\r?\n/g, "\r\n");
    found = occurrences(before, oldString);
  }
  const index = found[0];
  if (index === undefined) throw notFound(target.relative, args.old_string);
  if (found.length > 1) {
    const lines = found.slice(0, 10).map((at) => lineOf(before, at));
    throw new BuiltinRefusal(
      "not_unique",
      `Refused: old_string occurs ${found.length > MAX_COUNTED ? `more than ${MAX_COUNTED}` : found.length} times in '${target.relative}' (at lines ${lines.join(", ")}${found.length > 10 ? ", …" : ""}). Include more surrounding text so it matches exactly once.`,
    );
  }
  const after = before.slice(0, index) + newString + before.slice(index + oldString.length);
  ctx.signal.throwIfAborted();
  await writeFileAtomic(target, after);
  const span = { index, oldLength: oldString.length, newLength: newString.length };
  const fullDiff = unifiedDiffOfEdit(target.relative, before, after, span);
  const diff =
    fullDiff.length > maxDiffChars
      ? `${fullDiff.slice(0, maxDiffChars)}\n[… diff cut: ${fullDiff.length - maxDiffChars} more characters …]\n`
      : fullDiff;
  const line = lineOf(before, index);
  return {
    path: target.relative,
    line,
    diff,
    text: `Edited ${target.relative} at line ${line}.\n${diff}`,
  };
}

async function readText(target: ResolvedPath, maxFileBytes: number): Promise<string> {
  const handle = await openVerifiedFile(target);
  try {
    const size = (await handle.stat()).size;
    if (size > maxFileBytes) {
      throw new BuiltinRefusal(
        "file_too_large",
        `Refused to edit '${target.relative}': it is ${size} bytes and the limit is ${maxFileBytes}.`,
      );
    }
    const bytes = await handle.readFile();
    if (looksBinary(bytes.subarray(0, SNIFF_BYTES))) {
      throw new BuiltinRefusal(
        "binary_file",
        `Refused to edit '${target.relative}': it looks like a binary file.`,
      );
    }
    const text = bytes.toString("utf8");
    // Decoding replaced invalid bytes; writing them back would silently corrupt the file.
    if (Buffer.byteLength(text) !== bytes.length || !Buffer.from(text).equals(bytes)) {
      throw new BuiltinRefusal(
        "invalid_utf8",
        `Refused to edit '${target.relative}': it is not valid UTF-8, and rewriting it would change bytes outside the edit.`,
      );
    }
    return text;
  } finally {
    await handle.close();
  }
}

/** Most occurrences counted; beyond it the refusal says "more than". */
const MAX_COUNTED = 1000;

/** Start indices of occurrences, overlapping ones included (they make a match ambiguous). */
function occurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) {
    found.push(at);
    if (found.length > MAX_COUNTED) break;
  }
  return found;
}

function lineOf(text: string, index: number): number {
  let line = 1;
  for (let at = text.indexOf("\n"); at !== -1 && at < index; at = text.indexOf("\n", at + 1)) {
    line += 1;
  }
  return line;
}

function notFound(file: string, oldString: string): BuiltinRefusal {
  const hints = [
    `Refused: old_string was not found in '${file}'. It must match the file exactly, including whitespace, indentation and line breaks; read the file again to copy the current text.`,
  ];
  if (/^\s*\d+\t/m.test(oldString)) {
    hints.push("It seems to include read_file's line-number prefixes ('12<tab>'); leave them out.");
  }
  return new BuiltinRefusal("not_found", hints.join(" "));
}
