import { readFile, stat } from "node:fs/promises";
import { resolveInWorkspace } from "../builtin/workspace/resolve-in-workspace.js";
import type { TerminalStyle } from "../shared/terminal-style.js";
import type { ApprovalRequest } from "./approval.js";
import { describeFileChange } from "./describe-file-change.js";
import { showControlCharacters } from "./format-arguments.js";

/** Files larger than this are not read for a diff. */
const MAX_PREVIEW_BYTES = 1024 * 1024;
/** Lines of diff shown at the prompt; the rest is counted. */
const MAX_DIFF_LINES = 120;

/**
 * What a file tool's call would change, as a unified diff for the approver: `write_file` against
 * the file as it is now (or the whole file marked "new file"), `edit_file` with its edit applied
 * (the diff itself is `describeFileChange`'s, which the web console shows too).
 * Only files inside the workspace are read (symbolic links followed first, as the tools do);
 * anything that cannot be shown says why instead. Undefined for other tools.
 *
 * @example
 * ```ts
 * declare const request: import("./approval.js").ApprovalRequest; // a write_file call
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
  if (describeFileChange(name, request.args, "missing") === undefined) return undefined;
  const file = String(request.args.path);
  const current = await readCurrent(workspace, file, hidden);
  if (current.status === "unreadable") return `(no diff: ${current.reason})`;
  const label = current.status === "file" ? current.relative : file;
  const change = describeFileChange(
    name,
    { ...request.args, path: label },
    current.status === "file" ? current.text : "missing",
  );
  if (change === undefined) return "(no diff: the change is too large to show)";
  if (change.basis === "new_file") return `(new file)\n${change.patch}`;
  if (change.basis === "current") return change.patch;
  // An edit_file whose old_string is not found exactly once: the tool would refuse it.
  const why =
    current.status === "missing"
      ? "the file does not exist"
      : `old_string occurs ${current.text.includes(String(request.args.old_string)) ? "more than once" : "nowhere"} in the file`;
  return `(the edit would be refused: ${why}; the replacement asked for:)\n${change.patch}`;
}

/**
 * A diff for a person: control characters made visible (the content is the model's), added
 * lines green and removed ones red (the `+`/`-` stay), long diffs cut with a count.
 *
 * @example
 * ```ts
 * import { terminalStyle } from "../shared/terminal-style.js";
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
