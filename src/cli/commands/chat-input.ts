import { createInterface } from "node:readline";

/** What the operator gave at the prompt. */
export type ChatInput =
  | { readonly type: "message"; readonly text: string }
  /** Ctrl-D at an empty prompt, or the end of piped input. */
  | { readonly type: "end" }
  /** Ctrl-C at an empty prompt. */
  | { readonly type: "interrupt" };

/** The prompt's source of messages. */
export interface ChatLines {
  next(): Promise<ChatInput>;
  /** What was typed in this chat, newest first, for the history file. */
  readonly added: readonly string[];
  close(): void;
}

/** Options for {@link chatLines}. */
export interface ChatLinesOptions {
  readonly input?: NodeJS.ReadStream;
  readonly output?: NodeJS.WriteStream;
  /** Earlier entries, newest first: up-arrow recalls them (at a terminal). */
  readonly history?: readonly string[];
  readonly prompt?: string;
  /** The prompt of a continuation line. */
  readonly more?: string;
}

const PASTE_ON = "\x1b[?2004h";
const PASTE_OFF = "\x1b[?2004l";

/** A line ending in one backslash continues on the next (`\\` at the end is a backslash). */
function continues(line: string): boolean {
  return /(?:^|[^\\])(?:\\\\)*\\$/.test(line);
}

/**
 * Messages from the terminal or a pipe. A line ending in `\` continues on the next, so a message
 * of several lines reaches the model as one (as in Claude Code); at a terminal, so does pasted
 * text of several lines (bracketed paste), sent by the Enter after it. At a terminal: readline editing
 * and history (up-arrow), a fresh interface per message, because while a turn runs the terminal
 * approver owns the input; Ctrl-C clears a half-typed message and at an empty prompt interrupts.
 * From a pipe: one interface for the whole chat (a fresh one would lose lines the previous had
 * buffered), each line a message.
 *
 * @example
 * ```ts
 * import { chatHistoryFile, loadChatHistory } from "./chat-history.js";
 * const file = chatHistoryFile("/ws");
 * const lines = chatLines({ history: loadChatHistory(file) });
 * const input = await lines.next(); // { type: "message", text: "first\nsecond" }
 * ```
 */
export function chatLines({
  input = process.stdin,
  output = process.stderr,
  history = [],
  prompt = "\nyou> ",
  more = "...> ",
}: ChatLinesOptions = {}): ChatLines {
  const added: string[] = [];
  const recall = [...history];
  const remember = (text: string) => {
    if (text.trim() === "" || recall[0] === text) return;
    recall.unshift(text);
    added.unshift(text);
  };
  if (!input.isTTY) {
    const rl = createInterface({ input, terminal: false });
    const lines = rl[Symbol.asyncIterator]();
    return {
      added,
      async next() {
        const parts: string[] = [];
        output.write(prompt);
        for (;;) {
          const { value, done } = await lines.next();
          if (done)
            return parts.length > 0 ? { type: "message", text: parts.join("\n") } : { type: "end" };
          const line = String(value);
          if (!continues(line)) return { type: "message", text: [...parts, line].join("\n") };
          parts.push(line.slice(0, -1));
        }
      },
      close: () => rl.close(),
    };
  }
  return {
    added,
    next: () =>
      new Promise((resolve) => {
        // Ctrl-D typed while a turn ran reached a terminal in cooked mode: the input has ended.
        if (input.readableEnded || input.destroyed) return resolve({ type: "end" });
        // historySize 0: readline adds nothing itself; a message of several lines is one entry.
        const rl = createInterface({
          input,
          output,
          terminal: true,
          history: recall,
          historySize: 0,
        });
        const parts: string[] = [];
        let settled = false;
        // Bracketed paste: the terminal marks pasted text, so its line ends join the message
        // instead of sending it; Enter after the paste sends it all.
        let pasting = false;
        const onKey = (_: unknown, key: { name?: string } | undefined) => {
          if (key?.name === "paste-start") pasting = true;
          if (key?.name === "paste-end") pasting = false;
        };
        input.on("keypress", onKey);
        if (output.isTTY) output.write(PASTE_ON);
        const finish = (result: ChatInput) => {
          if (settled) return;
          settled = true;
          input.off("keypress", onKey);
          if (output.isTTY) output.write(PASTE_OFF);
          rl.close();
          resolve(result);
        };
        rl.on("line", (line) => {
          if (pasting) {
            parts.push(line);
            rl.setPrompt(more);
            rl.prompt();
            return;
          }
          if (continues(line)) {
            parts.push(line.slice(0, -1));
            rl.setPrompt(more);
            rl.prompt();
            return;
          }
          const text = [...parts, line].join("\n");
          remember(text);
          finish({ type: "message", text });
        });
        rl.on("SIGINT", () => {
          if (parts.length === 0 && rl.line === "") return finish({ type: "interrupt" });
          // A half-typed message is dropped, as a shell drops the line.
          parts.length = 0;
          output.write("^C\n");
          rl.write(null, { ctrl: true, name: "e" });
          rl.write(null, { ctrl: true, name: "u" });
          rl.setPrompt(prompt.trimStart());
          rl.prompt();
        });
        rl.on("close", () => finish({ type: "end" }));
        rl.setPrompt(prompt);
        rl.prompt();
      }),
    close: () => undefined,
  };
}
