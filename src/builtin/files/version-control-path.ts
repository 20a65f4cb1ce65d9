import * as path from "node:path";
import { gitGuards } from "../../sandbox/git-guards.js";
import { realOrSelf } from "../../sandbox/quiet-fs.js";
import type { BuiltinContext } from "../builtin-context.js";
import { BuiltinRefusal } from "../builtin-refusal.js";

function within(child: string, parent: string): boolean {
  return child === parent || child.startsWith(`${parent}${path.sep}`);
}

/**
 * Why a path is version-control metadata that git runs or loads later, or undefined: anything
 * in or named `.git` (folders, `.git` files, modules, worktrees), and the paths the sandbox keeps
 * read-only (`gitGuards`): a git directory a `.git` file names elsewhere, a hooks path such as
 * `.husky`, a file a configuration includes, a program it names. The file tools refuse to write
 * these, as the sandbox does, whatever the policy says short of a rule naming the exact path.
 * In a workspace too large to look through for repositories, only the `.git` names are known.
 *
 * @example
 * ```ts
 * versionControlPath("/ws", "/ws/.git/hooks/pre-commit"); // "git's own metadata (.git)"
 * versionControlPath("/ws", "/ws/src/index.ts"); // undefined
 * ```
 */
export function versionControlPath(workspace: string, absolute: string): string | undefined {
  const root = realOrSelf(workspace);
  const relative = path.relative(root, absolute);
  if (relative.split(path.sep).some((part) => part.toLowerCase() === ".git")) {
    return "git's own metadata (.git)";
  }
  const guards = gitGuards({ workspace: root, roots: [root] });
  if (guards.status !== "ok") return undefined;
  const guarded = [
    ...guards.readOnly,
    ...guards.absent,
    ...guards.pinned,
    ...guards.links.map((link) => link.path),
  ];
  const hit = guarded.find((entry) => within(absolute, entry));
  if (hit === undefined) return undefined;
  return `a file git runs or loads as configuration (${path.relative(root, hit) || hit})`;
}

/**
 * Refuse a write to version-control metadata (`versionControlPath`) unless the policy allows
 * this tool on exactly this path: git would run or load it later, outside docket.
 *
 * @example
 * ```ts
 * declare const ctx: import("../builtin-context.js").BuiltinContext;
 * declare const target: import("../workspace/resolve-in-workspace.js").ResolvedPath;
 * refuseMetadataWrite(ctx, target, "write_file"); // throws for .git/hooks/pre-commit
 * ```
 */
export function refuseMetadataWrite(
  ctx: BuiltinContext,
  target: { readonly input: string; readonly absolute: string },
  tool: string,
): void {
  const what = versionControlPath(ctx.workspace, target.absolute);
  if (what === undefined || ctx.guard?.allowsExactly?.(tool, target.absolute) === true) return;
  throw new BuiltinRefusal(
    "version_control_metadata",
    `Refused '${target.input}': it is ${what}. git would run or load what is written there later, outside docket and its sandbox, with the user's rights. Only a policy rule allowing ${tool} on exactly this path lets it through.`,
  );
}
