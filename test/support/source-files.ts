import { readdir } from "node:fs/promises";
import { join, relative } from "node:path";

/** A module of a source tree: its path relative to the root (`/`-separated) and on disk. */
export interface SourceFile {
  readonly file: string;
  readonly path: string;
}

/**
 * Every TypeScript module under `root`, tests and declaration files left out, in path order.
 *
 * @example
 * ```ts
 * for (const { file, path } of await sourceFiles("src")) console.log(file, path);
 * ```
 */
export async function sourceFiles(root: string): Promise<SourceFile[]> {
  const found: SourceFile[] = [];
  // Walked by hand: Node 20's recursive readdir with file types can miss entries.
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (
        entry.isFile() &&
        entry.name.endsWith(".ts") &&
        !entry.name.endsWith(".test.ts") &&
        !entry.name.endsWith(".d.ts")
      ) {
        found.push({ file: relative(root, path).split("\\").join("/"), path });
      }
    }
  };
  await walk(root);
  return found.sort((a, b) => a.file.localeCompare(b.file));
}
