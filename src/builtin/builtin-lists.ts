import { BUILTIN_MANIFEST, type BuiltinEntry, type BuiltinManifest } from "./builtin-manifest.js";

/**
 * The lists other layers need, each derived from a manifest (the real one by default), so no
 * folder keeps its own copy of the built-in names.
 */
export interface BuiltinLists {
  /** Every built-in's name, in manifest order. */
  readonly names: readonly string[];
  /** Whether each one writes, worst case where it decides per call. */
  readonly writes: Readonly<Record<string, boolean>>;
  /** The ones that run in the OS sandbox. */
  readonly confined: readonly string[];
  /** The ones whose results are open-world data. */
  readonly openWorld: readonly string[];
  /** The ones that hand file contents to the model. */
  readonly readingContents: readonly string[];
  /** The ones that can carry data out of the session, worst case where confinement decides. */
  readonly sending: readonly string[];
}

/**
 * Derive every list of built-in tools from a manifest.
 *
 * @example
 * ```ts
 * import { builtinLists } from "./builtin-lists.js";
 * builtinLists().confined; // ["run_command"]
 * ```
 */
export function builtinLists(manifest: BuiltinManifest = BUILTIN_MANIFEST): BuiltinLists {
  const entries = Object.entries(manifest);
  const named = (test: (entry: BuiltinEntry) => boolean) =>
    Object.freeze(entries.filter(([, entry]) => test(entry)).map(([name]) => name));
  return Object.freeze({
    names: Object.freeze(entries.map(([name]) => name)),
    writes: Object.freeze(
      Object.fromEntries(entries.map(([name, entry]) => [name, worstCaseWrites(entry)])),
    ),
    confined: named((entry) => entry.confined),
    openWorld: named((entry) => entry.openWorld),
    readingContents: named((entry) => entry.readsContents),
    sending: named((entry) => entry.sends !== false),
  });
}

/**
 * What a built-in counts as before its arguments are known: a per-call decision is a write.
 *
 * @example
 * ```ts
 * worstCaseWrites({ writes: "per-call" }); // true
 * ```
 */
export function worstCaseWrites(entry: Pick<BuiltinEntry, "writes">): boolean {
  return entry.writes !== false;
}

/**
 * Whether a built tool sends data out, from its entry and how it runs: `"unless-confined"` is
 * outward when the tool is not sandboxed (`confinement` absent or not `sandboxed`).
 *
 * @example
 * ```ts
 * builtinSends({ sends: "unless-confined" }, { status: "sandboxed" }); // false
 * builtinSends({ sends: "unless-confined" }, { status: "off" }); // true
 * ```
 */
export function builtinSends(
  entry: Pick<BuiltinEntry, "sends">,
  confinement?: { readonly status: string },
): boolean {
  return entry.sends === "unless-confined" ? confinement?.status !== "sandboxed" : entry.sends;
}

/**
 * The lists of the real built-ins, derived once.
 *
 * @example
 * ```ts
 * BUILTIN_LISTS.names.includes("fetch_url"); // true
 * ```
 */
export const BUILTIN_LISTS: BuiltinLists = builtinLists();
