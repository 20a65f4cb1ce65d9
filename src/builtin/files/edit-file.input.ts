import { z } from "zod";

/** Tool name the model calls. */
export const editFileName = "edit_file";

/** One-line description the model sees. */
export const editFileDescription =
  "Replace one exact, unique occurrence of old_string with new_string in a workspace file; returns a unified diff. Use it for small changes to an existing file; read the file first.";

/**
 * Input schema of `edit_file`.
 *
 * @example
 * ```ts
 * editFileInput.parse({ path: "src/a.ts", old_string: "const x = 1;", new_string: "const x = 2;" });
 * ```
 */
export const editFileInput = z.strictObject({
  path: z.string().min(1).describe("File to edit, relative to the workspace root."),
  old_string: z
    .string()
    .min(1)
    .describe(
      "Exact text to replace, including whitespace and indentation (without read_file's line-number prefixes). It must occur exactly once: include enough surrounding lines to make it unique.",
    ),
  new_string: z.string().describe("Text to put in its place (may be empty to delete)."),
});

/** Arguments of `edit_file`. */
export type EditFileArgs = z.infer<typeof editFileInput>;
