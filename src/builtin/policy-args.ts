/**
 * Which argument of each built-in tool the policy layer should look at, by role: `path` is
 * matched with workspace path globs (symlinks resolved, `..` normalised), `command` is analysed
 * as a shell script, `url` is matched with URL host patterns.
 *
 * @example
 * ```ts
 * builtinPolicyArgs.run_command.command; // "command": judge args.command as a shell script
 * builtinPolicyArgs.read_file.path; // "path"
 * ```
 */
export const builtinPolicyArgs = {
  read_file: { path: "path" },
  list_files: { path: "path" },
  search_files: { path: "path" },
  write_file: { path: "path" },
  edit_file: { path: "path" },
  run_command: { command: "command" },
  fetch_url: { url: "url" },
} as const satisfies Record<string, Partial<Record<"path" | "command" | "url", string>>>;

/** Names of the built-in tools. */
export type BuiltinToolName = keyof typeof builtinPolicyArgs;

/**
 * Whether each built-in tool changes anything (writes) or only reads; writes default to `ask`
 * in the policy engine when no rule matches. `run_command` decides per call (a script proven
 * read-only is a read); `true` here is its worst case, what is known before the arguments are.
 *
 * @example
 * ```ts
 * builtinWrites.fetch_url; // false
 * builtinWrites.run_command; // true
 * ```
 */
export const builtinWrites = {
  read_file: false,
  list_files: false,
  search_files: false,
  write_file: true,
  edit_file: true,
  run_command: true,
  fetch_url: false,
} as const satisfies Record<BuiltinToolName, boolean>;
