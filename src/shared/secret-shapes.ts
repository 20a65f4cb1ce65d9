/** One well-known credential format: what it is called, how it looks, how it is masked. */
export interface SecretShape {
  /** What the credential is, in words for the trail: `github token`, `aws access key`. */
  readonly kind: string;
  /** Global, so one pass finds every occurrence. */
  readonly pattern: RegExp;
  /** Keeps the prefix, so a reader can tell which credential it was (`ghp_***`). */
  readonly replacement: string;
}

/**
 * The shapes of well-known credentials, each kept to its prefix when masked. One list for every
 * exit: error messages (`maskSecrets`) and tool results at the checkpoint (`scanSecrets`).
 *
 * @example
 * ```ts
 * CREDENTIAL_SHAPES.find((shape) => shape.kind === "github token")?.pattern.test("ghp_…");
 * ```
 */
export const CREDENTIAL_SHAPES: readonly SecretShape[] = [
  { kind: "anthropic key", pattern: /\bsk-ant-[A-Za-z0-9_-]{8,}/g, replacement: "sk-ant-***" },
  { kind: "openai key", pattern: /\bsk-(?!ant-)[A-Za-z0-9_-]{16,}/g, replacement: "sk-***" },
  {
    kind: "github token",
    pattern: /\bgithub_pat_[A-Za-z0-9_]{16,}/g,
    replacement: "github_pat_***",
  },
  { kind: "github token", pattern: /\b(gh[pousr]_)[A-Za-z0-9]{16,}/g, replacement: "$1***" },
  { kind: "slack token", pattern: /\b(xox[abposr]-)[A-Za-z0-9-]{8,}/g, replacement: "$1***" },
  { kind: "aws access key", pattern: /\b((?:AKIA|ASIA))[0-9A-Z]{16}\b/g, replacement: "$1***" },
  {
    kind: "bearer token",
    pattern: /\b(bearer\s+)(?!\*\*\*)[A-Za-z0-9._~+/=-]{8,}/gi,
    replacement: "$1***",
  },
  {
    kind: "jwt",
    pattern: /\beyJ[A-Za-z0-9_-]{8,}(?:\.[A-Za-z0-9_-]*){0,2}/g,
    replacement: "eyJ***",
  },
  { kind: "google api key", pattern: /\bAIza[0-9A-Za-z_-]{30,}/g, replacement: "AIza***" },
  { kind: "gitlab token", pattern: /\bglpat-[A-Za-z0-9_-]{16,}/g, replacement: "glpat-***" },
  { kind: "npm token", pattern: /\bnpm_[A-Za-z0-9]{30,}/g, replacement: "npm_***" },
  {
    kind: "stripe key",
    pattern: /\b((?:sk|rk|pk)_(?:live|test)_)[A-Za-z0-9]{10,}/g,
    replacement: "$1***",
  },
  { kind: "hugging face token", pattern: /\bhf_[A-Za-z0-9]{24,}/g, replacement: "hf_***" },
  {
    kind: "private key",
    pattern: /(-----BEGIN [A-Z ]*PRIVATE KEY-----)[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----)/g,
    replacement: "$1***$2",
  },
];

/**
 * `scheme://user:password@host`: the password is everything from the first `:` of the userinfo
 * to the last `@` before the host (raw passwords hold `@` and `:` more often than they should).
 * The userinfo stops at whitespace, `/`, `?` or `#`, so a later `@` in a path or an e-mail
 * address elsewhere is not taken for it.
 */
export const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/?#@]*:)[^\s/?#]*@/gi;

/**
 * `NAME=value`, `NAME: value`, `"name": "value"`: a value (quoted, or up to a space or
 * separator) given under a name, which the caller judges with `isSecretEnvName`.
 */
export const NAMED_VALUE =
  /(["']?)([A-Za-z_][A-Za-z0-9_.-]*)\1(\s*[:=]\s*)("[^"\n]*"|'[^'\n]*'|[^\s"',;&}\]]+)/g;
