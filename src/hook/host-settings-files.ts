import { hostAdapters } from "./host-registry.js";

/**
 * Every host's files that carry docket's registration or could take it out of the host's loop
 * (a local settings file that overrides it), relative to the project or the home folder: a
 * hook's runtime protects them as docket's own files, so that the self-protection vote (names
 * compared without case, real paths, folders that hold them, shell commands analysed) and the
 * sandbox keep every tool away from them.
 *
 * @example
 * ```ts
 * import { buildRuntime } from "../cli/build-runtime.js";
 * await buildRuntime({ terminal: false, alsoOwn: hostSettingsFiles() });
 * ```
 */
export function hostSettingsFiles(): { file: string; what: string }[] {
  const files = new Map<string, string>();
  for (const { title, registration } of hostAdapters()) {
    for (const file of [registration.target.file, ...registration.alsoGuarded]) {
      if (!files.has(file)) files.set(file, `${title}'s settings, which register docket`);
    }
  }
  return [...files].map(([file, what]) => ({ file, what }));
}
