import { readFile, stat } from "node:fs/promises";
import { createTwoFilesPatch } from "diff";
import { unifiedDiffOfEdit } from "../builtin/files/edit-diff.js";
import { resolveInWorkspace } from "../builtin/workspace/resolve-in-workspace.js";
import type { TerminalStyle } from "../shared/terminal-style.js";
import type { ApprovalRequest } from "./approval.js";
import { showControlCharacters } from "./format-arguments.js";

/** Files larger than this are not read for a diff. */
const MAX_PREVIEW_BYTES = 1024 * 1024;
/** Lines of diff shown at the prompt; the rest is counted. */
const MAX_DIFF_LINES = 120;

/**
 * What a file tool's call would change, as a unified diff for the approver: `write_file` against
 * the file as it is now (or the whole file marked "new file"), `edit_file` with its edit applied.
 * Only files inside the workspace are read (symbolic links followed first, as the tools do);
 * anything that cannot be shown says why instead. Undefined for other tools.
 *
 * @example
 * ```ts
 * const diff = await previewCall(request, { workspace: "/home/me/project" });
 * // "--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-old\n+new\n"
 * ```
 */
export async function previewCall(
  request: Pick<ApprovalRequest, "tool" | "args">,
  {
    workspace,
    hidden = () => undefined,
  }: {
    workspace: string;
    /** Why a file must not be shown (docket's own, or deny-protected), or undefined. */
    hidden?: (absolute: string) => string | undefined;
  },
): Promise<string | undefined> {
  const name = request.tool.name;
  if (name !== "write_file" && name !== "edit_file") return undefined;
  const { path: file, content, old_string: oldText, new_string: newText } = request.args;
  if (typeof file !== "string") return undefined;
  const current = await readCurrent(workspace, file, hidden);
  if (current.status === "unreadable") return `(no diff: ${current.reason})`;
  const label = current.status === "file" ? current.relative : file;
  if (name === "write_file") {
    if (typeof content !== "string") return undefined;
    const before = current.status === "file" ? current.text : "";
    const patch = createTwoFilesPatch(
      current.status === "file" ? `a/${label}` : "/dev/null",
      `b/${label}`,
      before,
      content,
      undefined,
      undefined,
      { context: 3 },
    );
    // Without the separator line the library puts first.
    const body = patch
      .split("\n")
      .filter((line) => !line.startsWith("====") && !line.startsWith("Index: "))
      .join("\n");
    return `${current.status === "missing" ? "(new file)\n" : ""}${body}`;
  }
  if (typeof oldText !== "string" || typeof newText !== "string") return undefined;
  if (current.status === "missing")
    return "(no diff: the file does not exist, so the edit would be refused)";
  const index = current.text.indexOf(oldText);
  const again = index === -1 ? -1 : current.text.indexOf(oldText, index + 1);
  if (index === -1 || again !== -1) {
    return `(no diff: old_string occurs ${index === -1 ? "nowhere" : "more than once"} in the file, so the edit would be refused)`;
  }
  const after = current.text.slice(0, index) + newText + current.text.slice(index + oldText.length);
  return unifiedDiffOfEdit(label, current.text, after, {
    index,
    oldLength: oldText.length,
    newLength: newText.length,
  });
}

/**
 * A diff for a person: control characters made visible (the content is the model's), added
 * lines green and removed ones red (the `+`/`-` stay), long diffs cut with a count.
 *
 * @example
 * ```ts
 * renderDiff("-a\n+b\n", terminalStyle(false), "    "); // "    -a\n    +b\n"
 * ```
 */
export function renderDiff(diff: string, style: TerminalStyle, indent: string): string {
  const lines = diff.replace(/\n$/, "").split("\n");
  const shown = lines.slice(0, MAX_DIFF_LINES).map((line) => {
    const safe = showControlCharacters(line);
    const coloured = line.startsWith("+")
      ? style.green(safe)
      : line.startsWith("-")
        ? style.red(safe)
        : line.startsWith("@@")
          ? style.dim(safe)
          : safe;
    return `${indent}${coloured}\n`;
  });
  const more = lines.length - MAX_DIFF_LINES;
  if (more > 0) shown.push(`${indent}${style.dim(`[… ${more} more lines of diff …]`)}\n`);
  return shown.join("");
}

type Current =
  | { status: "file"; text: string; relative: string }
  | { status: "missing" }
  | { status: "unreadable"; reason: string };

async function readCurrent(
  workspace: string,
  file: string,
  hidden: (absolute: string) => string | undefined,
): Promise<Current> {
  try {
    const target = await resolveInWorkspace(workspace, file);
    const why = hidden(target.absolute);
    if (why !== undefined)
      return { status: "unreadable", reason: `the file is protected (${why})` };
    if (target.kind === "missing") return { status: "missing" };
    if (target.kind !== "file") return { status: "unreadable", reason: "the path is not a file" };
    const { size } = await stat(target.absolute);
    if (size > MAX_PREVIEW_BYTES)
      return { status: "unreadable", reason: `the file is ${size} bytes, too large to diff` };
    const bytes = await readFile(target.absolute);
    if (bytes.includes(0)) return { status: "unreadable", reason: "the file is binary" };
    return { status: "file", text: bytes.toString("utf8"), relative: target.relative };
  } catch (error) {
    const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
    return { status: "unreadable", reason: reason ?? "the file cannot be read" };
  }
}
