import type { ApproverDirectory } from "../../approval/approver-directory.js";

/**
 * What to tell someone who decided `--as NAME` for a name the CLI does not know: which file the
 * CLI reads approvers from, who is declared there, and that approvers given only in a program's
 * code are not seen by the CLI (issue 40: they must be declared in that file as well).
 *
 * @example
 * ```ts
 * import { createApproverDirectory } from "../../approval/approver-directory.js";
 * const directory = createApproverDirectory({ bob: { roles: ["lead"] } });
 * approverDeclaredWhere("alice", directory, { projectFile: "/srv/shop/docket.yaml" });
 * // "The CLI reads approvers from approvers: in /srv/shop/docket.yaml (bob). …"
 * ```
 */
export function approverDeclaredWhere(
  name: string,
  directory: ApproverDirectory,
  { projectFile, userFile }: { projectFile?: string | undefined; userFile?: string | undefined },
): string {
  const files = [projectFile, userFile].filter((file): file is string => file !== undefined);
  const known = [...directory.entries.keys()];
  const source =
    files.length === 0
      ? "No docket.yaml was found in this folder or above it, so the CLI knows no approvers."
      : `The CLI reads approvers from approvers: in ${files.join(" and ")} (${known.length === 0 ? "none declared" : known.join(", ")}).`;
  return [
    source,
    `Approvers given only in your program's code (createApproverDirectory) are not seen by the CLI: declare ${name} in ${projectFile ?? "the project's docket.yaml (docket init makes one)"} as well, for example:`,
    "  approvers:",
    `    ${/^[\w.-]+$/.test(name) ? name : JSON.stringify(name)}:`,
    "      roles: [lead]",
  ].join("\n");
}
