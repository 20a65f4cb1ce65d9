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
 * The lists of the real built-ins, derived once.
 *
 * @example
 * ```ts
 * BUILTIN_LISTS.names.includes("fetch_url"); // true
 * ```
 */
export const BUILTIN_LISTS: BuiltinLists = builtinLists();
