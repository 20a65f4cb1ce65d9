import { lstatSync } from "node:fs";
import * as path from "node:path";
import { realOrSelf } from "./quiet-fs.js";

function within(child: string, parent: string): boolean {
  return child === parent || child.startsWith(`${parent}${path.sep}`);
}

/**
 * The first symbolic link on the way to `file` that lies in a folder the sandbox may write, or
 * undefined. bwrap mounts where a link points, never on the link: a command can remove such a
 * link, make a real folder by its name and fill it, and docket, which reads through the name,
 * would read that. No mount can stop it, so the launch is refused instead.
 *
 * @example
 * ```ts
 * // ~/.config/docket -> ~/dotfiles/docket, with the home folder writable:
 * writableLink("/home/u/.config/docket", ["/home/u"]); // "/home/u/.config/docket"
 * ```
 */
export function writableLink(file: string, roots: readonly string[]): string | undefined {
  const parts = path.resolve(file).split(path.sep).filter(Boolean);
  let current: string = path.sep;
  for (const part of parts) {
    current = path.join(current, part);
    const stat = lstatSync(current, { throwIfNoEntry: false });
    if (stat === undefined) return undefined;
    if (!stat.isSymbolicLink()) continue;
    const folder = realOrSelf(path.dirname(current));
    if (roots.some((root) => within(folder, root))) return current;
  }
  return undefined;
}
