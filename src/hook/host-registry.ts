// Loaded by the hook guard before anything heavy: the adapters are data and small functions.
import type { HostAdapter } from "./host-adapter.js";
import { claudeCodeHost } from "./hosts/claude-code.js";
import { codexHost } from "./hosts/codex.js";
import { geminiCliHost } from "./hosts/gemini-cli.js";
import { opencodeHost } from "./hosts/opencode.js";

// One line per host: adding a host is its module under hosts/ and a line here.
const ADAPTERS = [claudeCodeHost, geminiCliHost, codexHost, opencodeHost] as const;

/** One of `HOST_NAMES`. */
export type HostName = (typeof ADAPTERS)[number]["name"];

/**
 * The coding agents docket can be the permission hook of.
 *
 * @example
 * ```ts
 * HOST_NAMES.includes("claude-code"); // true
 * ```
 */
export const HOST_NAMES: readonly HostName[] = ADAPTERS.map((adapter) => adapter.name);

const BY_NAME: ReadonlyMap<string, HostAdapter<HostName>> = new Map(
  ADAPTERS.map((adapter) => [adapter.name, adapter]),
);

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
  return typeof value === "string" && BY_NAME.has(value);
}

/**
 * The adapter of a host: its events, tools, replies, registration and asking.
 *
 * @example
 * ```ts
 * hostAdapter("gemini-cli").events.BeforeTool; // "before"
 * ```
 */
export function hostAdapter(name: HostName): HostAdapter<HostName> {
  const adapter = BY_NAME.get(name);
  // Only a caller that skipped isHostName gets here; a HostName always has its adapter.
  if (adapter === undefined) throw new TypeError(`no hook adapter for ${JSON.stringify(name)}`);
  return adapter;
}

/**
 * Every host's adapter, in the registry's order.
 *
 * @example
 * ```ts
 * hostAdapters().map((adapter) => adapter.registration.target.file);
 * ```
 */
export function hostAdapters(): readonly HostAdapter<HostName>[] {
  return ADAPTERS;
}
