import { z } from "zod";

/** Tool name the model calls. */
export const writeFileName = "write_file";

/** One-line description the model sees. */
export const writeFileDescription =
  "Create or overwrite a file in the workspace with the given content (parent folders are created). Use it for new files or complete rewrites; prefer edit_file for small changes.";

/**
 * Input schema of `write_file`.
 *
 * @example
 * ```ts
 * writeFileInput.parse({ path: "notes/todo.md", content: "- ship it\n" });
 * ```
 */
export const writeFileInput = z.strictObject({
  path: z
    .string()
    .min(1)
    .describe("File to write, relative to the workspace root; missing folders are created."),
  content: z.string().describe("The complete new content of the file."),
});

/** Arguments of `write_file`. */
export type WriteFileArgs = z.infer<typeof writeFileInput>;
