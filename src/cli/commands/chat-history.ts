import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { maskSecrets } from "../../shared/mask-secrets.js";
import { parseJson } from "../../shared/parse-json.js";

/** How many entries the history keeps, as a shell's HISTSIZE does. */
export const MAX_HISTORY = 1_000;

/**
 * The history file of a project: `.docket/chat-history` beside docket.yaml (or in the cwd),
 * inside the state folder that docket's self-protection keeps every tool out of.
 *
 * @example
 * ```ts
 * chatHistoryFile("/work/app"); // "/work/app/.docket/chat-history"
 * ```
 */
export function chatHistoryFile(projectDir: string): string {
  return path.join(projectDir, ".docket", "chat-history");
}

/**
 * Whether an entry may be written to the history file: not a line that looks like a secret
 * (a token's shape, `PASSWORD=…`, a URL with a password; whatever docket masks when it prints).
 * It is still sent to the model when typed; only the file never keeps it.
 *
 * @example
 * ```ts
 * keepInHistory("summarise README.md"); // true
 * keepInHistory("my key is sk-ant-api03-abcdefghijklmnop"); // false
 * ```
 */
export function keepInHistory(entry: string): boolean {
  return entry.trim() !== "" && maskSecrets(entry) === entry;
}

/**
 * Read the history, newest first (the order readline's `history` wants). Entries are stored one
 * per line, JSON-encoded, so an entry of several lines stays one entry. A missing or unreadable
 * file is an empty history: losing history never stops a chat.
 *
 * @example
 * ```ts
 * const projectDir = "/ws";
 * const history = loadChatHistory(chatHistoryFile(projectDir)); // ["last line", "the one before"]
 * ```
 */
export function loadChatHistory(file: string): string[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return [];
  }
  const entries: string[] = [];
  for (const line of text.split("\n")) {
    if (line === "") continue;
    try {
      const entry: unknown = parseJson(line);
      if (typeof entry === "string" && keepInHistory(entry)) entries.push(entry);
    } catch {}
  }
  return entries.slice(-MAX_HISTORY).reverse();
}

/**
 * Add this chat's entries (newest first) to the history file: merged with what the file holds
 * now, so two chats of one project both keep theirs; the newest {@link MAX_HISTORY} entries that
 * {@link keepInHistory} accepts are kept, in a file only its owner can read, replaced in one
 * rename so a reader never sees half a file. Errors are swallowed: history is a convenience.
 *
 * @example
 * ```ts
 * const projectDir = "/ws";
 * saveChatHistory(chatHistoryFile(projectDir), ["newest", "older"]);
 * ```
 */
export function saveChatHistory(file: string, addedNewestFirst: readonly string[]): void {
  if (addedNewestFirst.length === 0) return;
  const merged = [...addedNewestFirst, ...loadChatHistory(file)];
  const kept = merged
    .filter((entry, index) => keepInHistory(entry) && entry !== merged[index - 1])
    .slice(0, MAX_HISTORY)
    .reverse();
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(temporary, kept.map((entry) => `${JSON.stringify(entry)}\n`).join(""), {
      mode: 0o600,
    });
    renameSync(temporary, file);
  } catch {}
}
