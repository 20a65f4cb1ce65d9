import type { BuiltinContext } from "../builtin-context.js";
import { BuiltinRefusal } from "../builtin-refusal.js";
import { resolveInWorkspace } from "../workspace/resolve-in-workspace.js";
import { openVerifiedFile } from "../workspace/verified-handle.js";
import { handleLooksBinary } from "./binary-content.js";
import { refuseDeniedRead, refuseOwnFile } from "./file-guard.js";
import { countLinesFrom, decodeLine, scanLines } from "./line-scanner.js";
import type { ReadFileArgs } from "./read-file.input.js";

/** Settings for `read_file`. */
export interface ReadFileOptions {
  /** Lines returned when the call gives no `limit`. */
  defaultLimit?: number;
  /** Cap on the returned text, in bytes. */
  maxBytes?: number;
  /** Longer lines are cut at this many bytes. */
  maxLineBytes?: number;
  /** How far past the window to read to count the file's lines; beyond it, "at least". */
  countBudgetBytes?: number;
  /** Prefix each line with its number (`   12\t…`), so the model can aim offsets and edits. */
  lineNumbers?: boolean;
}

/** What `read_file` returns. */
export interface ReadFileResult {
  /** Workspace-relative path of the file. */
  path: string;
  /** First line shown (1-based). */
  startLine: number;
  /** Last line shown; `startLine - 1` when none were. */
  endLine: number;
  /** Lines in the file, or null when the file was too large to count them within budget. */
  totalLines: number | null;
  /** Size of the file in bytes. */
  fileBytes: number;
  /** True when lines after `endLine` were not shown. */
  truncated: boolean;
  /** Where to continue, or null at the end of the file. */
  nextOffset: number | null;
  /** Lines that were cut at `maxLineBytes`. */
  linesCut: number;
  /** The lines (numbered) and a note on how to read further, for the model. */
  text: string;
}

/**
 * Read a window of lines from a text file inside the workspace.
 *
 * Only the window is read (plus a cheap newline count of the rest, within a budget), through a
 * handle verified to be the checked file. Binary files are refused; long output is capped with
 * a note saying which offset continues.
 *
 * @example
 * ```ts
 * declare const ctx: import("../builtin-context.js").BuiltinContext;
 * const result = await readFile({ path: "big.log", offset: 2001, limit: 100 }, ctx);
 * result.text; // "2001\t…\n…\n… showing lines 2001-2100 of 51234; call read_file with offset 2101 to continue."
 * ```
 */
export async function readFile(
  args: ReadFileArgs,
  ctx: BuiltinContext,
  {
    defaultLimit = 2000,
    maxBytes = 256 * 1024,
    maxLineBytes = 4096,
    countBudgetBytes = 64 * 1024 * 1024,
    lineNumbers = true,
  }: ReadFileOptions = {},
): Promise<ReadFileResult> {
  ctx.signal.throwIfAborted();
  const target = await resolveInWorkspace(ctx.workspace, args.path, { mustExist: true });
  refuseOwnFile(ctx, target);
  refuseDeniedRead(ctx, target);
  const handle = await openVerifiedFile(target);
  try {
    const fileBytes = Number((await handle.stat()).size);
    if (await handleLooksBinary(handle)) {
      throw new BuiltinRefusal(
        "binary_file",
        `Refused to read '${target.relative}': it looks like a binary file (${fileBytes} bytes), and read_file only returns text.`,
      );
    }
    const startLine = args.offset ?? 1;
    const limit = args.limit ?? defaultLimit;
    const lines: string[] = [];
    let bytes = 0;
    let linesCut = 0;
    const outcome = await scanLines(
      handle,
      (line) => {
        let text = decodeLine(line.bytes, line.omittedBytes);
        if (line.omittedBytes > 0) {
          linesCut += 1;
          const hidden = line.bytes.length + line.omittedBytes - Buffer.byteLength(text);
          text += ` … [line cut: ${hidden} more bytes]`;
        }
        const rendered = lineNumbers ? `${line.number}\t${text}` : text;
        const size = Buffer.byteLength(rendered) + 1;
        if (lines.length > 0 && bytes + size > maxBytes) return "stop";
        lines.push(rendered);
        bytes += size;
        return lines.length >= limit ? "stop" : undefined;
      },
      { firstLine: startLine, maxLineBytes, signal: ctx.signal },
    );
    const rest = outcome.stopped
      ? await countLinesFrom(handle, outcome.end, countBudgetBytes, ctx.signal)
      : 0;
    const totalLines = rest === undefined ? null : outcome.lastLine + rest;
    const endLine = startLine + lines.length - 1;
    const more = totalLines === null || endLine < totalLines;
    const result: ReadFileResult = {
      path: target.relative,
      startLine,
      endLine,
      totalLines,
      fileBytes,
      truncated: more && lines.length > 0,
      nextOffset: more && lines.length > 0 ? endLine + 1 : null,
      linesCut,
      text: "",
    };
    result.text = render(result, lines, maxLineBytes);
    return result;
  } finally {
    await handle.close();
  }
}

function render(result: ReadFileResult, lines: string[], maxLineBytes: number): string {
  const { path, startLine, endLine, totalLines, fileBytes } = result;
  if (totalLines === 0) return `(${path} is empty)`;
  if (lines.length === 0) {
    return `(${path} has ${totalLines} lines; offset ${startLine} is past the end)`;
  }
  const notes: string[] = [];
  if (result.nextOffset !== null) {
    const of =
      totalLines === null
        ? `of at least ${endLine + 1} (file is ${fileBytes} bytes)`
        : `of ${totalLines}`;
    notes.push(
      `… showing lines ${startLine}-${endLine} ${of}; call read_file with offset ${result.nextOffset} to continue.`,
    );
  }
  if (result.linesCut > 0) {
    notes.push(
      `… ${result.linesCut} line(s) longer than ${maxLineBytes} bytes were cut; search_files can find text within them.`,
    );
  }
  return [...lines, ...notes].join("\n");
}
