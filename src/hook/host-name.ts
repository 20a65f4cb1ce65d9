/**
 * The coding agents docket can be the permission hook of.
 *
 * @example
 * ```ts
 * HOST_NAMES.includes("claude-code"); // true
 * ```
 */
export const HOST_NAMES = ["claude-code", "gemini-cli", "codex", "opencode"] as const;

/** One of `HOST_NAMES`. */
export type HostName = (typeof HOST_NAMES)[number];

/**
 * Whether a word names a host docket hooks into.
 *
 * @example
 * ```ts
 * isHostName("codex"); // true
 * isHostName("vim"); // false
 * ```
 */
export function isHostName(value: unknown): value is HostName {
  return typeof value === "string" && (HOST_NAMES as readonly string[]).includes(value);
}
