import type { TaintSource } from "./taint-ledger.js";

/**
 * A session's labels and what set them, in one line for people (`docket audit show`, the
 * console): each label with its latest source and how many results gave it, or `none`.
 *
 * @example
 * ```ts
 * import type { Store } from "../store/store.js";
 * import { storedLabelSources } from "./stored-label-sources.js";
 * declare const store: Store;
 * describeLabels(await storedLabelSources(store, "s1"));
 * // "private (read_file data/customers/a.csv, call c1); untrusted (fetch_url https://x, call c2; 2 results)"
 * ```
 */
export function describeLabels(sources: readonly TaintSource[]): string {
  const parts: string[] = [];
  for (const label of ["private", "untrusted"] as const) {
    const of = sources.filter((source) => (source.label ?? "untrusted") === label);
    const last = of[of.length - 1];
    if (last === undefined) continue;
    const more = of.length > 1 ? `; ${of.length} results` : "";
    parts.push(`${label} (${last.source}, call ${last.callId}${more})`);
  }
  return parts.length === 0 ? "none" : parts.join("; ");
}
