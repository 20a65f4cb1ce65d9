/** ANSI styles, each a no-op when colour is off. */
export interface TerminalStyle {
  readonly enabled: boolean;
  readonly green: (text: string) => string;
  readonly yellow: (text: string) => string;
  readonly red: (text: string) => string;
  readonly dim: (text: string) => string;
  readonly bold: (text: string) => string;
  /**
   * Colour a decision or status word by what it means: allow, ok and approved green; ask,
   * pending and waiting yellow; deny, refused and failed red. The word itself is kept, so colour
   * is never the only signal.
   */
  readonly status: (word: string, text?: string) => string;
}

const GREEN = new Set(["allow", "allowed", "ok", "approved", "approve", "succeeded", "completed"]);
const YELLOW = new Set(["ask", "pending", "awaiting_approval", "waiting", "suspended"]);
const RED = new Set([
  "deny",
  "denied",
  "refused",
  "failed",
  "cancelled",
  "limit_reached",
  "approval_denied",
]);

const wrap =
  (enabled: boolean, open: number, close: number) =>
  (text: string): string =>
    enabled && text !== "" ? `\u001b[${open}m${text}\u001b[${close}m` : text;

/**
 * Styles for a terminal, from `colourEnabled`'s answer. No dependency: five SGR codes.
 *
 * @example
 * ```ts
 * import { colourEnabled } from "./colour-enabled.js";
 * const style = terminalStyle(colourEnabled(process.stderr));
 * process.stderr.write(`${style.status("deny")} by rule no-rm\n`);
 * ```
 */
export function terminalStyle(enabled: boolean): TerminalStyle {
  const green = wrap(enabled, 32, 39);
  const yellow = wrap(enabled, 33, 39);
  const red = wrap(enabled, 31, 39);
  return {
    enabled,
    green,
    yellow,
    red,
    dim: wrap(enabled, 2, 22),
    bold: wrap(enabled, 1, 22),
    status(word, text = word) {
      const key = word.toLowerCase();
      if (GREEN.has(key)) return green(text);
      if (YELLOW.has(key)) return yellow(text);
      if (RED.has(key)) return red(text);
      return text;
    },
  };
}
