const MAX_MESSAGE = 500;
const MIN_SECRET_LENGTH = 6;

/**
 * Turn anything a handler threw into one short line safe to show a model: the message only (no
 * stack, no cause chain), control characters removed, and any value of the process environment
 * replaced, since error messages from HTTP clients and drivers like to echo tokens and URLs.
 *
 * @example
 * ```ts
 * sanitiseError(new Error("connect failed with key sk-abc123")); // "connect failed with key [redacted]" when sk-abc123 is in process.env
 * ```
 */
export function sanitiseError(thrown: unknown, env: NodeJS.ProcessEnv = process.env): string {
  let text: string;
  if (thrown instanceof Error) {
    text = thrown.message || thrown.name;
  } else if (typeof thrown === "string") {
    text = thrown;
  } else {
    text = "the tool failed without an error message";
  }
  text = text.split("\n", 1)[0] ?? "";
  for (const value of Object.values(env)) {
    if (value && value.length >= MIN_SECRET_LENGTH && text.includes(value)) {
      text = text.replaceAll(value, "[redacted]");
    }
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point
  text = text.replace(/[\u0000-\u001f\u007f]/g, " ").trim();
  if (text.length > MAX_MESSAGE) text = `${text.slice(0, MAX_MESSAGE)}…`;
  return text || "the tool failed without an error message";
}
