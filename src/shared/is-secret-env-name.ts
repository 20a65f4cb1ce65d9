/**
 * Words that mark a secret wherever they appear in a name: `PGPASSWORD`, `CLIENT_SECRET_ID`,
 * `GOOGLE_APPLICATION_CREDENTIALS`, `OPENAI_APIKEY`, `npm_config__authToken`.
 */
const SECRET_SUBSTRINGS = [
  "PASSWORD",
  "PASSWD",
  "PASSPHRASE",
  "SECRET",
  "CREDENTIAL",
  "APIKEY",
  "API_KEY",
  "ACCESSKEY",
  "ACCESS_KEY",
  "PRIVATEKEY",
  "PRIVATE_KEY",
  "AUTHTOKEN",
  "AUTH_TOKEN",
];

/**
 * Words that mark a secret when they are a whole `_`-separated part of the name: `AWS_KEY_ID`,
 * `GITHUB_TOKEN`, `GH_PAT`, `MYSQL_PWD`, `SESSION_COOKIE`. Whole parts only, so that
 * `TOKENIZERS_PARALLELISM` or `KEYBOARD_LAYOUT` survive.
 */
const SECRET_PARTS = new Set(["KEY", "TOKEN", "PAT", "PWD", "COOKIE", "SIGNATURE"]);

/** Names that hold a secret-like word but are well known not to be secrets. */
const NEVER_SECRET = new Set(["PWD", "OLDPWD", "SSH_AUTH_SOCK", "GPG_AGENT_INFO"]);

/**
 * Whether an environment variable's name looks like it holds a secret. Case-insensitive. The
 * rules: the name contains PASSWORD, PASSWD, PASSPHRASE, SECRET, CREDENTIAL, APIKEY/API_KEY,
 * ACCESSKEY/ACCESS_KEY, PRIVATEKEY/PRIVATE_KEY or AUTHTOKEN/AUTH_TOKEN anywhere; or one of its
 * `_`/`-`/`.`-separated parts is KEY, TOKEN, PAT, PWD, COOKIE or SIGNATURE; or its last part is
 * AUTH (`NPM_CONFIG__AUTH`). `PWD`, `OLDPWD` and `SSH_AUTH_SOCK` are exempt.
 *
 * @example
 * ```ts
 * isSecretEnvName("OPENAI_API_KEY"); // true
 * isSecretEnvName("PATH"); // false
 * ```
 */
export function isSecretEnvName(name: string): boolean {
  const upper = name.toUpperCase();
  if (NEVER_SECRET.has(upper)) return false;
  if (SECRET_SUBSTRINGS.some((word) => upper.includes(word))) return true;
  const parts = upper.split(/[^A-Z0-9]+/).filter(Boolean);
  if (parts.some((part) => SECRET_PARTS.has(part))) return true;
  return parts.at(-1) === "AUTH";
}
