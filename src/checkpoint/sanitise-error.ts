import { isSecretEnvName } from "../shared/is-secret-env-name.js";
import { maskSecrets } from "../shared/mask-secrets.js";

const MAX_MESSAGE = 500;
/** Values this long, with no spaces or slashes, look like tokens whatever their name. */
const TOKEN_LIKE = /^[A-Za-z0-9_\-+=.:~]{24,}$/;

function secretValues(env: NodeJS.ProcessEnv): string[] {
  const values: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (!value) continue;
    if ((isSecretEnvName(name) && value.length >= 4) || TOKEN_LIKE.test(value)) values.push(value);
  }
  // Longest first, so a value that contains another is replaced whole.
  return values.sort((a, b) => b.length - a.length);
}

/**
 * Turn anything a handler threw into one short line safe to show a model: the message only (no
 * stack, no cause chain), control characters removed, and secrets from the environment replaced,
 * since HTTP clients and drivers like to echo tokens and connection strings. Secrets are the
 * values of variables whose names look secret, and token-like values whatever their name; paths
 * such as HOME or PWD are left alone so that messages stay useful. Credentials found by their
 * shape (a URL's password, `sk-…`, `ghp_…`, `Bearer …`: see `maskSecrets`) are masked too.
 *
 * @example
 * ```ts
 * sanitiseError(new Error("401 for key sk-abc123"), { API_KEY: "sk-abc123" }); // "401 for key [redacted]"
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
  for (const value of secretValues(env)) {
    if (text.includes(value)) text = text.replaceAll(value, "[redacted]");
  }
  text = maskSecrets(text);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point
  text = text.replace(/[\u0000-\u001f\u007f]/g, " ").trim();
  if (text.length > MAX_MESSAGE) text = `${text.slice(0, MAX_MESSAGE)}…`;
  return text || "the tool failed without an error message";
}
