import { lazyImport } from "../../shared/lazy-import.js";
import { defineBuiltinTool } from "../../tool/define-tool.js";
import type { Tool } from "../../tool/tool.js";
import { BUILTIN_MANIFEST } from "../builtin-manifest.js";
import type { EditFileOptions } from "./edit-file.handler.js";
import { editFileDescription, editFileInput, editFileName } from "./edit-file.input.js";
import type { FileGuard } from "./file-guard.js";
import type { ListFilesOptions } from "./list-files.handler.js";
import { listFilesDescription, listFilesInput, listFilesName } from "./list-files.input.js";
import type { ReadFileOptions } from "./read-file.handler.js";
import { readFileDescription, readFileInput, readFileName } from "./read-file.input.js";
import type { SearchFilesOptions } from "./search-files.handler.js";
import { searchFilesDescription, searchFilesInput, searchFilesName } from "./search-files.input.js";
import type { WriteFileOptions } from "./write-file.handler.js";
import { writeFileDescription, writeFileInput, writeFileName } from "./write-file.input.js";

/** Settings for the file tools, each optional. */
export interface FileToolOptions {
  readonly read?: ReadFileOptions;
  readonly list?: ListFilesOptions;
  readonly search?: SearchFilesOptions;
  readonly write?: WriteFileOptions;
  readonly edit?: EditFileOptions;
  /** docket's own files and deny-protected files, kept from every file tool. */
  readonly guard?: FileGuard;
}

// Each handler (and what it imports: diff, ignore, the walker) loads on the tool's first call,
// so a process that only lists or checks tools never pays for them.
const readFileHandler = lazyImport(() => import("./read-file.handler.js"));
const listFilesHandler = lazyImport(() => import("./list-files.handler.js"));
const searchFilesHandler = lazyImport(() => import("./search-files.handler.js"));
const writeFileHandler = lazyImport(() => import("./write-file.handler.js"));
const editFileHandler = lazyImport(() => import("./edit-file.handler.js"));

/** The model reads the prepared text; library callers still get the structured result. */
const asText = (result: { text: string }) => result.text;

/**
 * The five file tools, jailed to `workspace`.
 *
 * @example
 * ```ts
 * const tools = fileTools("/home/me/project");
 * ```
 */
export function fileTools(workspace: string, options: FileToolOptions = {}): Tool[] {
  const guard = options.guard;
  return [
    defineBuiltinTool({
      name: readFileName,
      description: readFileDescription,
      input: readFileInput,
      writes: BUILTIN_MANIFEST.read_file.writes,
      sends: BUILTIN_MANIFEST.read_file.sends,
      policyArgs: BUILTIN_MANIFEST.read_file.policyArgs,
      handler: async (args, ctx) =>
        (await readFileHandler()).readFile(
          args,
          { workspace, signal: ctx.signal, guard },
          options.read,
        ),
      shape: asText,
    }),
    defineBuiltinTool({
      name: listFilesName,
      description: listFilesDescription,
      input: listFilesInput,
      writes: BUILTIN_MANIFEST.list_files.writes,
      sends: BUILTIN_MANIFEST.list_files.sends,
      policyArgs: BUILTIN_MANIFEST.list_files.policyArgs,
      handler: async (args, ctx) =>
        (await listFilesHandler()).listFiles(
          args,
          { workspace, signal: ctx.signal, guard },
          options.list,
        ),
      shape: asText,
    }),
    defineBuiltinTool({
      name: searchFilesName,
      description: searchFilesDescription,
      input: searchFilesInput,
      writes: BUILTIN_MANIFEST.search_files.writes,
      sends: BUILTIN_MANIFEST.search_files.sends,
      policyArgs: BUILTIN_MANIFEST.search_files.policyArgs,
      // The search has its own time budget; the deadline is a backstop.
      timeoutMs: 60_000,
      handler: async (args, ctx) =>
        (await searchFilesHandler()).searchFiles(
          args,
          { workspace, signal: ctx.signal, guard },
          options.search,
        ),
      shape: asText,
    }),
    defineBuiltinTool({
      name: writeFileName,
      description: writeFileDescription,
      input: writeFileInput,
      writes: BUILTIN_MANIFEST.write_file.writes,
      sends: BUILTIN_MANIFEST.write_file.sends,
      policyArgs: BUILTIN_MANIFEST.write_file.policyArgs,
      handler: async (args, ctx) =>
        (await writeFileHandler()).writeFile(
          args,
          { workspace, signal: ctx.signal, guard },
          options.write,
        ),
      shape: asText,
    }),
    defineBuiltinTool({
      name: editFileName,
      description: editFileDescription,
      input: editFileInput,
      writes: BUILTIN_MANIFEST.edit_file.writes,
      sends: BUILTIN_MANIFEST.edit_file.sends,
      policyArgs: BUILTIN_MANIFEST.edit_file.policyArgs,
      handler: async (args, ctx) =>
        (await editFileHandler()).editFile(
          args,
          { workspace, signal: ctx.signal, guard },
          options.edit,
        ),
      shape: asText,
    }),
  ];
}
