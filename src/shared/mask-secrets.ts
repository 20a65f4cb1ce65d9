import { isSecretEnvName } from "./is-secret-env-name.js";

/**
 * `scheme://user:password@host`: the password is everything from the first `:` of the userinfo
 * to the last `@` before the host (raw passwords hold `@` and `:` more often than they should).
 * The userinfo stops at whitespace, `/`, `?` or `#`, so a later `@` in a path or an e-mail
 * address elsewhere is not taken for it.
 */
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/?#@]*:)[^\s/?#]*@/gi;

/** Shapes of well-known credentials, each kept to its prefix so a reader can tell which it was. */
const TOKEN_SHAPES: readonly [RegExp, string][] = [
  [/\bsk-ant-[A-Za-z0-9_-]{8,}/g, "sk-ant-***"],
  [/\bsk-(?!ant-)[A-Za-z0-9_-]{16,}/g, "sk-***"],
  [/\bgithub_pat_[A-Za-z0-9_]{16,}/g, "github_pat_***"],
  [/\b(gh[pousr]_)[A-Za-z0-9]{16,}/g, "$1***"],
  [/\b(xox[abposr]-)[A-Za-z0-9-]{8,}/g, "$1***"],
  [/\b((?:AKIA|ASIA))[0-9A-Z]{16}\b/g, "$1***"],
  [/\b(bearer\s+)(?!\*\*\*)[A-Za-z0-9._~+/=-]{8,}/gi, "$1***"],
  [/\beyJ[A-Za-z0-9_-]{8,}(?:\.[A-Za-z0-9_-]*){0,2}/g, "eyJ***"],
  [/\bAIza[0-9A-Za-z_-]{30,}/g, "AIza***"],
  [/\bglpat-[A-Za-z0-9_-]{16,}/g, "glpat-***"],
  [/\bnpm_[A-Za-z0-9]{30,}/g, "npm_***"],
  [/\b((?:sk|rk|pk)_(?:live|test)_)[A-Za-z0-9]{10,}/g, "$1***"],
  [/\bhf_[A-Za-z0-9]{24,}/g, "hf_***"],
  [/(-----BEGIN [A-Z ]*PRIVATE KEY-----)[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----)/g, "$1***$2"],
];

/**
 * `NAME=value`, `NAME: value`, `"name": "value"`: a value (quoted, or up to a space or
 * separator) given under a name that looks like a secret's (`isSecretEnvName`). This is how a
 * crashing MCP server or a failing command echoes its own configuration, values docket's own
 * environment never held, so masking by value cannot see them.
 */
const NAMED_VALUE =
  /(["']?)([A-Za-z_][A-Za-z0-9_.-]*)\1(\s*[:=]\s*)("[^"\n]*"|'[^'\n]*'|[^\s"',;&}\]]+)/g;

function maskNamedValue(
  whole: string,
  quote: string,
  name: string,
  sep: string,
  value: string,
): string {
  const bare = value.replace(/^["']|["']$/g, "");
  if (!isSecretEnvName(name)) {
    // `fatal: DB_PASSWORD=x`: the value of an ordinary name may hold a secret-named one.
    const inner = value.replace(NAMED_VALUE, maskNamedValue);
    return inner === value ? whole : `${quote}${name}${quote}${sep}${inner}`;
  }
  // Already masked (a URL's `user:***@host` reads as `user: ***@host` here too).
  if (bare.startsWith("***") || bare.length < 4) return whole;
  const q = value.startsWith('"') || value.startsWith("'") ? (value[0] as string) : "";
  return `${quote}${name}${quote}${sep}${q}***${q}`;
}

/**
 * Mask credentials in text that docket prints or returns: the password of any URL with userinfo
 * (`postgres://user:***@host/db`) and the shapes of well-known tokens (`sk-…`, `sk-ant-…`,
 * `ghp_…`, `github_pat_…`, `xoxb-…`, `AKIA…`, `Bearer …`, JWTs `eyJ…`, `AIza…`, `glpat-…`, `npm_…`,
 * `sk_live_…`, `hf_…`, PEM private keys), and values under secret-looking names
 * (`DB_PASSWORD=…`, `"client_secret": "…"`). Every exit for an error
 * message goes through it: tool failures the model reads, MCP upstream errors, model failures,
 * the CLI's error lines, store open errors. Masking by shape complements masking by value
 * (`sanitiseError` also replaces the values of secret-named environment variables).
 *
 * @example
 * ```ts
 * maskSecrets("connect to postgres://app:hunter2@db/app failed"); // "connect to postgres://app:***@db/app failed"
 * maskSecrets("401 for Bearer abcdef123456"); // "401 for Bearer ***"
 * ```
 */
export function maskSecrets(text: string): string {
  let masked = text.replace(URL_PASSWORD, "$1***@");
  for (const [shape, replacement] of TOKEN_SHAPES) masked = masked.replace(shape, replacement);
  return masked.replace(NAMED_VALUE, maskNamedValue);
}
