/**
 * The built-in tools as data: what each one is to policy, the menu and the sandbox, with no
 * schema and no handler. Every list of built-in tools derives from here (policy arguments,
 * writes, `policy check`'s metadata, the names outside descriptions may not mention, which tool
 * is confined, which reads file contents, which sends data out), so a new built-in is one entry here plus its own
 * folder. It imports nothing: `docket policy check` reads it without loading zod or a handler.
 */

/** The argument roles the policy layer judges: path globs, shell analysis, URL host patterns. */
export type PolicyArgRole = "path" | "command" | "url";

/** One built-in tool's entry. One field per fact; a new fact is a new optional field. */
export interface BuiltinEntry {
  /**
   * Whether it changes anything: `true`, `false`, or `"per-call"` (decided from the validated
   * arguments; where they are unknown, as in the menu or a rule listing, it counts as a write).
   */
  readonly writes: boolean | "per-call";
  /** Which argument holds the path, command or URL the policy judges, by role. */
  readonly policyArgs: Readonly<Partial<Record<PolicyArgRole, string>>>;
  /** Its results are other people's text: labelled as data, and they taint the run. */
  readonly openWorld: boolean;
  /** It runs in the OS sandbox, so its allow verdicts depend on the sandbox being there. */
  readonly confined: boolean;
  /** It hands file contents to the model, so a deny `path` rule on reading keeps files from it. */
  readonly readsContents: boolean;
  /**
   * Whether a call can carry data out of the session (an outward channel, ADR 0041): `true`,
   * `false`, or `"unless-confined"` (outward unless it runs in the OS sandbox, whose network is
   * closed unless `sandbox.network` opens it, which docket.yaml's `flow` then counts as outward).
   */
  readonly sends: boolean | "unless-confined";
}

/**
 * The built-in tools, by name.
 *
 * @example
 * ```ts
 * import { BUILTIN_MANIFEST } from "./builtin-manifest.js";
 * BUILTIN_MANIFEST.run_command.confined; // true
 * BUILTIN_MANIFEST.fetch_url.openWorld; // true
 * BUILTIN_MANIFEST.run_command.sends; // "unless-confined"
 * ```
 */
export const BUILTIN_MANIFEST = {
  read_file: {
    writes: false,
    policyArgs: { path: "path" },
    openWorld: false,
    confined: false,
    readsContents: true,
    sends: false,
  },
  list_files: {
    writes: false,
    policyArgs: { path: "path" },
    openWorld: false,
    confined: false,
    readsContents: false,
    sends: false,
  },
  search_files: {
    writes: false,
    policyArgs: { path: "path" },
    openWorld: false,
    confined: false,
    readsContents: true,
    sends: false,
  },
  write_file: {
    writes: true,
    policyArgs: { path: "path" },
    openWorld: false,
    confined: false,
    readsContents: false,
    sends: false,
  },
  edit_file: {
    writes: true,
    policyArgs: { path: "path" },
    openWorld: false,
    confined: false,
    readsContents: false,
    sends: false,
  },
  run_command: {
    writes: "per-call",
    policyArgs: { command: "command" },
    openWorld: false,
    confined: true,
    readsContents: false,
    sends: "unless-confined",
  },
  fetch_url: {
    writes: false,
    policyArgs: { url: "url" },
    openWorld: true,
    confined: false,
    readsContents: false,
    sends: true,
  },
} as const satisfies Readonly<Record<string, BuiltinEntry>>;

/** Names of the built-in tools. */
export type BuiltinToolName = keyof typeof BUILTIN_MANIFEST;

/** A manifest: the built-ins' entries by name (the real one, or one a test extends). */
export type BuiltinManifest = Readonly<Record<string, BuiltinEntry>>;
