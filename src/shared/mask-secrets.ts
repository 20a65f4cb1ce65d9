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
];

/**
 * Mask credentials in text that docket prints or returns: the password of any URL with userinfo
 * (`postgres://user:***@host/db`) and the shapes of well-known tokens (`sk-…`, `sk-ant-…`,
 * `ghp_…`, `github_pat_…`, `xoxb-…`, `AKIA…`, `Bearer …`, JWTs `eyJ…`). Every exit for an error
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
  return masked;
}
