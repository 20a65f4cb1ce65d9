import { createTwoFilesPatch } from "diff";

/**
 * What a write_file or edit_file call would change, as a unified diff for an approver. `basis`
 * says what the diff is against: the file's current text when the caller could read it, the
 * empty text for a file that does not exist yet, or (for an edit whose file was not read) just
 * the replaced snippet.
 */
export interface FileChange {
  readonly type: "file_change";
  readonly tool: "write_file" | "edit_file";
  readonly path: string;
  readonly basis: "current" | "new_file" | "snippet";
  /** Unified diff, `--- a/PATH` / `+++ b/PATH` headers, then the hunks. */
  readonly patch: string;
}

/** The file's current text when the caller read it; `missing` when it does not exist. */
export type CurrentText = string | "missing" | undefined;

const MAX_DIFF_INPUT = 2 * 1024 * 1024;

function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function patchOf(path: string, before: string, after: string): string {
  const patch = createTwoFilesPatch(`a/${path}`, `b/${path}`, before, after, undefined, undefined, {
    context: 3,
  });
  // The "=====" line says nothing a person needs; keep the familiar headers.
  return patch.replace(/^(?:Index: [^\n]*\n)?=+\n/, "");
}

/**
 * Describe the file change a `write_file` or `edit_file` call asks for, or undefined for any
 * other call (or arguments of the wrong shape). Pure: reading the current text is the caller's
 * business (`current`), so the terminal prompt and the web console can each decide whether
 * they may read the workspace. Inputs past 2 MiB are not diffed (undefined).
 *
 * @example
 * ```ts
 * describeFileChange("write_file", { path: "a.txt", content: "new\n" }, "old\n")?.patch;
 * // "--- a/a.txt\n+++ b/a.txt\n@@ -1,1 +1,1 @@\n-old\n+new\n"
 * ```
 */
export function describeFileChange(
  tool: string,
  args: unknown,
  current?: CurrentText,
): FileChange | undefined {
  if (typeof args !== "object" || args === null) return undefined;
  const record = args as Record<string, unknown>;
  const path = text(record.path);
  if (path === undefined || path === "") return undefined;
  const known = typeof current === "string" && current !== "missing" ? current : undefined;
  if ((known?.length ?? 0) > MAX_DIFF_INPUT) return undefined;
  if (tool === "write_file") {
    const content = text(record.content);
    if (content === undefined || content.length > MAX_DIFF_INPUT) return undefined;
    return known === undefined
      ? { type: "file_change", tool, path, basis: "new_file", patch: patchOf(path, "", content) }
      : { type: "file_change", tool, path, basis: "current", patch: patchOf(path, known, content) };
  }
  if (tool === "edit_file") {
    const oldString = text(record.old_string);
    const newString = text(record.new_string);
    if (oldString === undefined || newString === undefined) return undefined;
    if (oldString.length + newString.length > MAX_DIFF_INPUT) return undefined;
    const at = known?.indexOf(oldString) ?? -1;
    // Only a unique match is what edit_file would replace; otherwise show the snippet alone.
    if (known !== undefined && at !== -1 && known.indexOf(oldString, at + 1) === -1) {
      const after = known.slice(0, at) + newString + known.slice(at + oldString.length);
      return {
        type: "file_change",
        tool,
        path,
        basis: "current",
        patch: patchOf(path, known, after),
      };
    }
    // Where the snippet sits in the file is not known here: a hunk header would make up its
    // line numbers (`@@ -1,1 +1,1 @@`), so it says that instead.
    const patch = patchOf(path, oldString, newString).replace(
      /^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@/gm,
      "@@ the replaced text only: its line numbers in the file are not known @@",
    );
    return { type: "file_change", tool, path, basis: "snippet", patch };
  }
  return undefined;
}
