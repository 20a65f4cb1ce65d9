import type { BuiltinContext } from "../builtin-context.js";
import { BuiltinRefusal } from "../builtin-refusal.js";

/**
 * What the file tools keep away from the model whatever the policy says: docket's own files
 * (refused to every file tool) and files a deny `path` rule protects from reading (left out of
 * listings and searches, so `search_files` never shows a `.env` line). Each check takes a real
 * absolute path and answers with a reason, or undefined.
 */
export interface FileGuard {
  /** Why this path is one of docket's own files (the store, docket.yaml, a policy file, …). */
  readonly own?: (absolute: string) => string | undefined;
  /** Why a deny rule keeps this file from reading tools (e.g. `secrets stay secret`). */
  readonly secret?: (absolute: string) => string | undefined;
  /**
   * Whether a policy rule allows this tool on exactly this path (no glob): the one way past the
   * version-control guard (a policy engine's `allowsExactly`).
   */
  readonly allowsExactly?: (tool: string, absolute: string) => boolean;
}

/** What a file tool may read: a policy engine, or anything that answers like one. */
export interface FilePolicy {
  deniedPath(absolute: string): { readonly reason: string } | undefined;
  allowsExactly?(tool: string, absolute: string): boolean;
}

/**
 * The one guard every built-in file tool consults, whoever built the tools: docket's own files
 * from `own`, and from `policy` the deny rules that keep a file from reading tools (so a
 * listing or a search leaves `.env` out) and the exact allow rules that let a write reach
 * version-control metadata.
 *
 * @example
 * ```ts
 * declare const ownFiles: import("../../protect/docket-own-files.js").DocketOwnFiles;
 * declare const engine: import("../../policy/policy-engine.js").DocketPolicyEngine;
 * const guard = fileGuard({ own: (file) => ownFiles.find(file)?.what, policy: engine });
 * ```
 */
export function fileGuard({
  own,
  policy,
}: {
  own?: ((absolute: string) => string | undefined) | undefined;
  policy?: FilePolicy | undefined;
}): FileGuard {
  return {
    ...(own === undefined ? {} : { own }),
    ...(policy === undefined
      ? {}
      : {
          secret: (absolute: string) => policy.deniedPath(absolute)?.reason,
          allowsExactly: (tool: string, absolute: string) =>
            policy.allowsExactly?.(tool, absolute) === true,
        }),
  };
}

/**
 * Refuse a path that is one of docket's own files, naming what it is.
 *
 * @example
 * ```ts
 * import { resolveInWorkspace } from "../workspace/resolve-in-workspace.js";
 * declare const ctx: import("../builtin-context.js").BuiltinContext;
 * const args = { path: ".docket/docket.db" }; // from the model
 * const target = await resolveInWorkspace(ctx.workspace, args.path);
 * refuseOwnFile(ctx, target); // throws BuiltinRefusal("docket_file") for .docket/docket.db
 * ```
 */
export function refuseOwnFile(
  ctx: BuiltinContext,
  target: { readonly input: string; readonly absolute: string },
): void {
  const what = ctx.guard?.own?.(target.absolute);
  if (what === undefined) return;
  throw new BuiltinRefusal(
    "docket_file",
    `Refused '${target.input}': it is ${what}. docket protects its own files; no tool may read or write them, whatever the policy allows.`,
  );
}

/**
 * Refuse to read a file a deny rule keeps from reading tools: the policy decides the call's own
 * path argument, and this holds for the file the path really is, whoever wired the tools.
 *
 * @example
 * ```ts
 * declare const ctx: import("../builtin-context.js").BuiltinContext;
 * declare const target: import("../workspace/resolve-in-workspace.js").ResolvedPath;
 * refuseDeniedRead(ctx, target); // throws BuiltinRefusal("denied_path") for app/.env under `**\/.env`
 * ```
 */
export function refuseDeniedRead(
  ctx: BuiltinContext,
  target: { readonly input: string; readonly absolute: string },
): void {
  const why = ctx.guard?.secret?.(target.absolute);
  if (why === undefined) return;
  throw new BuiltinRefusal(
    "denied_path",
    `Refused '${target.input}': a deny rule of the policy protects it (${why}).`,
  );
}

/**
 * Whether a listing or search leaves this file out, and why: `own` or `secret`.
 *
 * @example
 * ```ts
 * import { walkFiles } from "./walk-files.js";
 * declare const ctx: import("../builtin-context.js").BuiltinContext;
 * for await (const file of walkFiles(ctx.workspace, ".")) {
 *   if (hiddenFile(ctx, file.absolute) !== undefined) continue;
 *   console.log(file.relative);
 * }
 * ```
 */
export function hiddenFile(ctx: BuiltinContext, absolute: string): "own" | "secret" | undefined {
  if (ctx.guard?.own?.(absolute) !== undefined) return "own";
  if (ctx.guard?.secret?.(absolute) !== undefined) return "secret";
  return undefined;
}

/**
 * The note a listing or search adds when it left files out.
 *
 * @example
 * ```ts
 * hiddenNote({ own: 2, secret: 1 }); // "(left out 2 of docket's own files and 1 file a deny rule protects)"
 * ```
 */
export function hiddenNote(counts: { own: number; secret: number }): string | undefined {
  const parts: string[] = [];
  if (counts.own > 0) parts.push(`${counts.own} of docket's own files`);
  if (counts.secret > 0) parts.push(`${counts.secret} file(s) a deny rule protects from reading`);
  return parts.length === 0 ? undefined : `(left out ${parts.join(" and ")})`;
}
