import { randomBytes } from "node:crypto";
import { lstatSync, renameSync } from "node:fs";
import { basename, dirname } from "node:path";
import { realOrUndefined } from "./quiet-fs.js";

/** One of docket's own files missing when a sandbox started, and where its folder really was. */
export interface PlantWatch {
  readonly path: string;
  /** The real path of its folder at launch, or undefined when that folder was missing too. */
  readonly folder: string | undefined;
}

/** What a sweep found at one watched path. */
export interface PlantNote {
  /** False when the file is still there: docket would load it at its next start. */
  readonly moved: boolean;
  readonly text: string;
}

/**
 * Note, at a sandbox's launch, docket's own files that are missing there: bwrap covers only what
 * exists, so the sandboxed program could create them.
 *
 * @example
 * ```ts
 * const watch = watchPlanted(["/ws/docket.yaml"]);
 * ```
 */
export function watchPlanted(paths: readonly string[]): PlantWatch[] {
  return paths.map((path) => ({ path, folder: realOrUndefined(dirname(path)) }));
}

/**
 * Rename a file planted by a sandboxed program to `NAME.from-sandbox-TIME`, or with a random part
 * when that name is taken or the rename to it fails: a program that made it first (a folder, say)
 * cannot keep the file in place. Answers the new path; throws when the rename fails.
 *
 * @example
 * ```ts
 * renameAside("/ws/.git/commondir"); // "/ws/.git/commondir.from-sandbox-1764763200000"
 * ```
 */
export function renameAside(file: string): string {
  const plain = `${file}.from-sandbox-${Date.now()}`;
  if (lstatSync(plain, { throwIfNoEntry: false }) === undefined) {
    try {
      renameSync(file, plain);
      return plain;
    } catch {
      // Taken between the look and the rename, or refused: the random name below.
    }
  }
  const random = `${plain}-${randomBytes(4).toString("hex")}`;
  renameSync(file, random);
  return random;
}

/**
 * Rename aside docket's own files (docket.yaml, `.docket/`) that were missing when a sandbox
 * started and exist now, so docket never loads a config a sandboxed command or MCP server wrote.
 * The new name gets a random part when its plain one is taken (a program cannot make the rename
 * fail by taking the name first), and a file whose folder now resolves elsewhere (a link made in
 * its place) is left alone and reported: the rename would act outside the sandbox's reach. The sandbox pins the folders that
 * existed at launch, so a program still running cannot swap them between the check and the
 * rename; with `live` (the program may still run) a file in a folder it made is left for the
 * sweep after it ends. Never throws.
 *
 * @example
 * ```ts
 * declare const log: (text: string) => void; // the call's log
 * const watch = watchPlanted(["/ws/docket.yaml"]);
 * // … the sandboxed program runs …
 * for (const note of moveAsidePlanted(watch)) log(note.text);
 * ```
 */
export function moveAsidePlanted(
  watch: readonly PlantWatch[],
  { by = "the command", live = false }: { by?: string; live?: boolean } = {},
): PlantNote[] {
  const notes: PlantNote[] = [];
  for (const { path: file, folder } of watch) {
    if (live && folder === undefined) continue;
    const name = basename(file);
    const failed = (why: string): void => {
      notes.push({
        moved: false,
        text: `docket: ${by} created ${name}, one of docket's own files, and docket could not move it aside (${why}): remove ${file} before starting docket again.`,
      });
    };
    let exists: boolean;
    try {
      exists = lstatSync(file, { throwIfNoEntry: false }) !== undefined;
    } catch (error) {
      // Unreadable now (a folder made unsearchable, a link loop): it may be there.
      if ((error as NodeJS.ErrnoException).code === "ENOTDIR") continue;
      failed((error as NodeJS.ErrnoException).code ?? "unreadable");
      continue;
    }
    if (!exists) continue;
    // A folder missing at launch was made by the program: it must be a real one, not a link.
    const now = realOrUndefined(dirname(file));
    if (now !== (folder ?? dirname(file))) {
      failed(`its folder now leads to ${now ?? "nowhere"}`);
      continue;
    }
    try {
      const aside = renameAside(file);
      notes.push({
        moved: true,
        text: `docket: ${by} created ${name}, one of docket's own files; docket moved it to ${basename(aside)} and will not load it.`,
      });
    } catch (error) {
      failed((error as NodeJS.ErrnoException).code ?? "rename failed");
    }
  }
  return notes;
}
