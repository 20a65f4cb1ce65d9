import type { BuiltinContext } from "../builtin-context.js";
import { BuiltinRefusal } from "../builtin-refusal.js";
import { writeFileAtomic } from "../workspace/atomic-write.effect.js";
import { resolveInWorkspace } from "../workspace/resolve-in-workspace.js";
import { refuseOwnFile } from "./file-guard.js";
import { refuseMetadataWrite } from "./version-control-path.js";
import type { WriteFileArgs } from "./write-file.input.js";

/** Settings for `write_file`. */
export interface WriteFileOptions {
  /** Largest content accepted, in bytes. */
  maxBytes?: number;
  /** Create missing parent folders (always inside the workspace). */
  createParents?: boolean;
}

/** What `write_file` returns. */
export interface WriteFileResult {
  /** Workspace-relative path written. */
  path: string;
  /** Bytes written. */
  bytes: number;
  /** True when the file did not exist before. */
  created: boolean;
  /** One line for the model. */
  text: string;
}

/**
 * Create or overwrite a file inside the workspace, atomically (temp file, fsync, rename in the
 * verified real folder), creating missing parent folders inside the workspace.
 *
 * @example
 * ```ts
 * declare const ctx: import("../builtin-context.js").BuiltinContext;
 * await writeFile({ path: "notes/todo.md", content: "- ship it\n" }, ctx);
 * // { path: "notes/todo.md", bytes: 10, created: true, text: "Created notes/todo.md (10 bytes)." }
 * ```
 */
export async function writeFile(
  args: WriteFileArgs,
  ctx: BuiltinContext,
  { maxBytes = 10 * 1024 * 1024, createParents = true }: WriteFileOptions = {},
): Promise<WriteFileResult> {
  ctx.signal.throwIfAborted();
  const size = Buffer.byteLength(args.content);
  if (size > maxBytes) {
    throw new BuiltinRefusal(
      "content_too_large",
      `Refused to write '${args.path}': the content is ${size} bytes and the limit is ${maxBytes}.`,
    );
  }
  const target = await resolveInWorkspace(ctx.workspace, args.path, { forWrite: true });
  refuseOwnFile(ctx, target);
  refuseMetadataWrite(ctx, target, "write_file");
  if (target.kind === "other") {
    throw new BuiltinRefusal(
      "not_a_file",
      `Refused to write '${args.path}': it is not a regular file (a device, socket or pipe).`,
    );
  }
  ctx.signal.throwIfAborted();
  const { created, bytes } = await writeFileAtomic(target, args.content, { createParents });
  return {
    path: target.relative,
    bytes,
    created,
    text: `${created ? "Created" : "Overwrote"} ${target.relative} (${bytes} bytes).`,
  };
}
