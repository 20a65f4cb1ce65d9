import { DocketError } from "../errors/docket-error.js";
import type { LayerSource } from "./policy-rule.js";

/** A path inside a layer or config file: keys and list indexes, e.g. `["rules", 2, "when"]`. */
export type IssuePath = readonly (string | number)[];

/** One problem found while loading policy. */
export interface PolicyIssue {
  readonly path: IssuePath;
  readonly message: string;
}

/**
 * Write a path the way the messages show it: `rules[2].when`.
 *
 * @example
 * ```ts
 * formatIssuePath(["rules", 2, "when"]); // "rules[2].when"
 * ```
 */
export function formatIssuePath(path: IssuePath): string {
  let text = "";
  for (const part of path) {
    if (typeof part === "number") text += `[${part}]`;
    else text += text === "" ? part : `.${part}`;
  }
  return text;
}

/**
 * The line of a path in its source: its own entry, else its nearest ancestor's.
 *
 * @example
 * ```ts
 * declare const source: import("./policy-rule.js").LayerSource; // docket.yaml, as read
 * lineOf(source, ["rules", 2, "when"]); // 12
 * ```
 */
export function lineOf(source: LayerSource, path: IssuePath): number | undefined {
  for (let end = path.length; end >= 0; end--) {
    const line = source.lines.get(formatIssuePath(path.slice(0, end)));
    if (line !== undefined) return line;
  }
  return undefined;
}

/**
 * Format issues as `FILE:LINE: PATH: problem` lines (or `LAYER: PATH: problem` when the layer
 * was built in code) and throw them as one `DocketError("policy_invalid")`.
 *
 * @example
 * ```ts
 * throwIssues([{ path: ["rules", 0, "decision"], message: "expected allow, ask or deny" }], { layer: "project" });
 * // DocketError: project: rules[0].decision: expected allow, ask or deny
 * ```
 */
export function throwIssues(
  issues: readonly PolicyIssue[],
  where: { layer: string; source?: LayerSource | undefined },
): never {
  const lines = issues.map((issue) => formatIssue(issue, where));
  const more =
    lines.length > 1 ? ` (and ${lines.length - 1} more problem${lines.length > 2 ? "s" : ""})` : "";
  const message =
    lines.length > 1
      ? `${lines[0]}${more}\n${lines.slice(1).join("\n")}`
      : (lines[0] ?? "policy is invalid");
  throw new DocketError("policy_invalid", message);
}

/**
 * One issue as a line of text.
 *
 * @example
 * ```ts
 * declare const source: import("./policy-rule.js").LayerSource; // docket.yaml, as read
 * formatIssue({ path: ["rules", 2, "when"], message: "Unexpected token" }, { layer: "project", source });
 * // "docket.yaml:12: rules[2].when: Unexpected token"
 * ```
 */
export function formatIssue(
  issue: PolicyIssue,
  where: { layer: string; source?: LayerSource | undefined },
): string {
  const at = formatIssuePath(issue.path);
  const subject = at === "" ? issue.message : `${at}: ${issue.message}`;
  if (where.source === undefined) return `${where.layer}: ${subject}`;
  const line = lineOf(where.source, issue.path);
  return `${where.source.file}${line === undefined ? "" : `:${line}`}: ${subject}`;
}
