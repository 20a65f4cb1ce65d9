import { existsSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { structuredPatch } from "diff";
import { registrationTarget, withoutRegistration, withRegistration } from "./hook-registration.js";
import type { HostName } from "./host-registry.js";

/** A change to one host's settings, computed before anything is written. */
export interface RegistrationChange {
  readonly file: string;
  readonly before: string;
  /** `undefined`: the file is removed (opencode's plugin on uninstall). */
  readonly after: string | undefined;
  readonly diff: readonly string[];
}

/** Where and how to register. */
export interface RegistrationOptions {
  readonly host: HostName;
  /** The command the host runs, e.g. `docket hook claude-code`. */
  readonly command: string;
  readonly project: string;
  readonly home?: string;
  /** The host's deadline for one hook run, in seconds. */
  readonly timeoutSeconds?: number;
  /**
   * docket's other commands for this host (the forms with and without a daemon flag): taken out
   * too, so that changing the form replaces the registration rather than adding a second one.
   */
  readonly alsoRemove?: readonly string[];
}

function fileOf({ host, project, home = homedir() }: RegistrationOptions): string {
  const target = registrationTarget(host);
  return join(target.home ? home : project, target.file);
}

/**
 * What `docket hook install` or `uninstall` would change, with the diff to show first.
 *
 * @example
 * ```ts
 * const change = await planRegistration("install", { host: "claude-code", command: "docket hook claude-code", project: "." });
 * console.log(change.diff.join("\n"));
 * ```
 */
export async function planRegistration(
  action: "install" | "uninstall",
  options: RegistrationOptions,
): Promise<RegistrationChange> {
  const file = fileOf(options);
  const before = existsSync(file) ? await readFile(file, "utf8") : "";
  const cleaned = (options.alsoRemove ?? []).reduce(
    (text, other) => withoutRegistration(options.host, text, other, file) ?? text,
    before,
  );
  let after: string | undefined;
  if (action === "install") {
    after = withRegistration(
      options.host,
      cleaned,
      options.command,
      options.timeoutSeconds ?? 180,
      file,
    );
  } else {
    after = withoutRegistration(options.host, cleaned, options.command, file);
    // A file that is all docket's and is not there: nothing to remove.
    if (after === undefined && before === "") after = "";
  }
  return { file, before, after, diff: changedLines(before, after ?? "") };
}

/**
 * Write a planned change (or remove the file it empties of docket's plugin).
 *
 * @example
 * ```ts
 * declare const change: RegistrationChange; // from planRegistration
 * await applyRegistration(change);
 * ```
 */
export async function applyRegistration(change: RegistrationChange): Promise<void> {
  if (change.after === undefined) {
    await rm(change.file, { force: true });
    return;
  }
  if (change.after === change.before) return;
  await mkdir(dirname(change.file), { recursive: true });
  await writeFile(change.file, change.after);
}

/** The changed lines of a settings file, `-` removed and `+` added, two unchanged lines around. */
function changedLines(before: string, after: string): string[] {
  const ended = (text: string) => (text === "" || text.endsWith("\n") ? text : `${text}\n`);
  const patch = structuredPatch("", "", ended(before), ended(after), "", "", { context: 2 });
  return patch.hunks.flatMap((hunk) => hunk.lines);
}
