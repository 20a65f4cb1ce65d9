// The registry's names alone, for the daemon's thin client, which must not load the adapters to
// know a hook call from `hook install` (host-registry.test.ts keeps the two lists equal).
const NAMES: ReadonlySet<string> = new Set(["claude-code", "gemini-cli", "codex", "opencode"]);

/**
 * Whether a word names a host docket hooks into, without loading any host adapter: the same
 * answer as host-registry.ts's `isHostName`.
 *
 * @example
 * ```ts
 * isHookHostName("claude-code"); // true
 * isHookHostName("install"); // false
 * ```
 */
export function isHookHostName(word: unknown): boolean {
  return typeof word === "string" && NAMES.has(word);
}
