import { z } from "zod";

/** Tool name the model calls. */
export const searchFilesName = "search_files";

/** One-line description the model sees. */
export const searchFilesDescription =
  "Search text files in the workspace for a JavaScript regular expression; results are 'file:line: text'. Use it to find where something is before reading whole files.";

/**
 * Input schema of `search_files`.
 *
 * @example
 * ```ts
 * searchFilesInput.parse({ pattern: "TODO\\(\\w+\\)", path: "src", glob: "*.ts" });
 * ```
 */
export const searchFilesInput = z.strictObject({
  pattern: z
    .string()
    .min(1)
    .max(2000)
    .describe(
      "JavaScript regular expression (no slashes, no flags) tested against each line, e.g. 'function\\s+\\w+Handler'.",
    ),
  path: z
    .string()
    .min(1)
    .optional()
    .describe(
      "Folder (or single file) to search, relative to the workspace root. Default: the root.",
    ),
  glob: z
    .string()
    .min(1)
    .max(1000)
    .optional()
    .describe(
      "Only search files whose path (relative to that folder) matches this glob; '*.ts' matches at any depth.",
    ),
  ignore_case: z.boolean().optional().describe("Match letters case-insensitively. Default false."),
});

/** Arguments of `search_files`. */
export type SearchFilesArgs = z.infer<typeof searchFilesInput>;
