import * as path from "node:path";

function strictlyInside(child: string, parent: string): boolean {
  return child.startsWith(`${parent}${path.sep}`);
}

/**
 * Every folder between the outermost writable root holding a mounted path and that path, for
 * the sandbox to bind onto itself after the writable roots. A mount point cannot be renamed or
 * removed (EBUSY), but a folder above one can, and the mount moves along with it: `mv .config
 * .config-old && mkdir -p .config/docket` would leave the hidden or read-only original at the
 * new name and an agent's copy where docket reads. Pinning the chain makes the rename fail.
 * Paths outside every root need nothing (the system is read-only), and a path below another of
 * `mounted` is skipped, since that one's pins and mount already cover it. Parents come first.
 *
 * @example
 * ```ts
 * pinAncestors(["/home/u/.config/docket"], ["/home/u"]); // ["/home/u/.config"]
 * pinAncestors(["/ws/.docket"], ["/ws"]); // [] (a child of the root has nothing to pin)
 * ```
 */
export function pinAncestors(mounted: readonly string[], roots: readonly string[]): string[] {
  const entries = [...new Set(mounted)];
  const pinned = new Set<string>();
  for (const entry of entries) {
    if (entries.some((other) => strictlyInside(entry, other))) continue;
    const holding = roots.filter((root) => strictlyInside(entry, root));
    if (holding.length === 0) continue;
    const outermost = holding.reduce((a, b) => (a.length <= b.length ? a : b));
    for (let dir = path.dirname(entry); strictlyInside(dir, outermost); dir = path.dirname(dir)) {
      pinned.add(dir);
    }
  }
  return [...pinned].sort((a, b) => a.length - b.length || a.localeCompare(b));
}
