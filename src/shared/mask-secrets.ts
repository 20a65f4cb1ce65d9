import { isSecretEnvName } from "./is-secret-env-name.js";
import { CREDENTIAL_SHAPES, NAMED_VALUE, URL_PASSWORD } from "./secret-shapes.js";

function maskNamedValue(
  whole: string,
  quote: string,
  name: string,
  sep: string,
  value: string,
): string {
  // `http://key=:***@host`: a URL's userinfo, its password already masked, after a name-like user.
  const bare = value.replace(/^["']|["']$/g, "").replace(/^:(?=\*\*\*@)/, "");
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
  for (const { pattern, replacement } of CREDENTIAL_SHAPES) {
    masked = masked.replace(pattern, replacement);
  }
  return masked.replace(NAMED_VALUE, maskNamedValue);
}
