import { z } from "zod";

/** Tool name the model calls. */
export const readFileName = "read_file";

/** One-line description the model sees. */
export const readFileDescription =
  "Read a text file in the workspace, returned with line numbers; read long files in windows with offset and limit. Use it before editing a file.";

/**
 * Input schema of `read_file`.
 *
 * @example
 * ```ts
 * readFileInput.parse({ path: "src/index.ts", offset: 2001, limit: 500 });
 * ```
 */
export const readFileInput = z.strictObject({
  path: z
    .string()
    .min(1)
    .describe("File to read, relative to the workspace root (absolute paths must stay inside it)."),
  offset: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe("1-based line number to start reading at. Default 1."),
  limit: z
    .number()
    .int()
    .min(1)
    .max(100_000)
    .optional()
    .describe("Maximum number of lines to return. Default 2000."),
});

/** Arguments of `read_file`. */
export type ReadFileArgs = z.infer<typeof readFileInput>;
