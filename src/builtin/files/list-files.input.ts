import { z } from "zod";

/** Tool name the model calls. */
export const listFilesName = "list_files";

/** One-line description the model sees. */
export const listFilesDescription =
  "List files under a workspace folder, optionally filtered by a glob; honours .gitignore and skips .git. Use it to see what a folder holds before reading files.";

/**
 * Input schema of `list_files`.
 *
 * @example
 * ```ts
 * listFilesInput.parse({ path: "src", pattern: "**\/*.test.ts" });
 * ```
 */
export const listFilesInput = z.strictObject({
  path: z
    .string()
    .min(1)
    .optional()
    .describe("Folder to list, relative to the workspace root. Default: the workspace root."),
  pattern: z
    .string()
    .min(1)
    .max(1000)
    .optional()
    .describe(
      "Glob matched against paths relative to that folder, e.g. 'src/**/*.ts'. A pattern without '/' (e.g. '*.md') matches file names at any depth. Default: all files.",
    ),
});

/** Arguments of `list_files`. */
export type ListFilesArgs = z.infer<typeof listFilesInput>;
