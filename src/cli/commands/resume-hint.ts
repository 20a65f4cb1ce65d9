import type { Session } from "../../store/session-record.js";
import type { Store } from "../../store/store.js";

/** A word as a POSIX shell reads it back: bare when safe, else in single quotes. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/**
 * The flags that say which docket.yaml, store, model and approver a command used, as the
 * operator gave them: a session started with `--model` (the README's path, since `docket init`
 * leaves `model:` commented out) cannot continue without it.
 */
export interface WhereFlags {
  readonly config?: string | undefined;
  readonly store?: string | undefined;
  readonly model?: string | undefined;
  readonly reasoning?: string | undefined;
  readonly as?: string | undefined;
}

/**
 * The exact command that continues a session, with the `--model`, `--reasoning`, `--as`,
 * `--config` and `--store` the operator gave (so it finds the same store and model), quoted for
 * the shell.
 *
 * @example
 * ```ts
 * resumeCommand(["chat", "--session", "ses_1"], { model: "ollama:qwen3", config: "team.yaml" });
 * // "docket chat --session ses_1 --model ollama:qwen3 --config team.yaml"
 * ```
 */
export function resumeCommand(words: readonly string[], flags: WhereFlags = {}): string {
  const all = [
    "docket",
    ...words,
    ...(flags.model === undefined ? [] : ["--model", flags.model]),
    ...(flags.reasoning === undefined ? [] : ["--reasoning", flags.reasoning]),
    ...(flags.as === undefined ? [] : ["--as", flags.as]),
    ...(flags.config === undefined ? [] : ["--config", flags.config]),
    ...(flags.store === undefined ? [] : ["--store", flags.store]),
  ];
  return all.map(shellWord).join(" ");
}

/**
 * The session `--continue` picks up: the one of this store with the latest activity (not the
 * latest created), leaving out the gateway's client sessions. Looks at the 10,000 newest.
 *
 * @example
 * ```ts
 * declare const store: import("../../store/store.js").Store;
 * const session = await latestSession(store); // undefined when the store has none
 * ```
 */
export async function latestSession(store: Store): Promise<Session | undefined> {
  let latest: Session | undefined;
  for (const session of await store.listSessions({ limit: 10_000 })) {
    const metadata = session.metadata as { gateway?: unknown } | null | undefined;
    if (metadata?.gateway !== undefined) continue;
    if (latest === undefined || session.updatedAt > latest.updatedAt) latest = session;
  }
  return latest;
}
