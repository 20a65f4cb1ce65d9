import { isSecretEnvName } from "./is-secret-env-name.js";
import { CREDENTIAL_SHAPES, NAMED_VALUE, URL_PASSWORD } from "./secret-shapes.js";

/** What `scanSecrets` found in a text: nothing, or the kinds of credential and the text masked. */
export type SecretScan =
  | { readonly status: "clean" }
  | {
      readonly status: "found";
      /** The kinds found, each once, in the order first met: `github token`, `password`. */
      readonly kinds: readonly string[];
      /** How many credentials were masked. */
      readonly count: number;
      /** The text with each credential replaced by `***` (a token keeps its prefix). */
      readonly masked: string;
    };

const CLEAN: SecretScan = Object.freeze({ status: "clean" });

/** Any of the words `isSecretEnvName` looks for: without one, no named value can be a secret. */
const SECRET_WORD = /pass|secret|credential|key|token|pat|pwd|cookie|signature|auth/i;
const MIN_TOKEN = 32;
const MIN_ENTROPY_BITS = 4.2;
const MIN_NAMED_VALUE = 8;

/**
 * Look for credentials in a text before it reaches a model: well-known formats (the shapes
 * `maskSecrets` knows: cloud keys, provider keys, tokens, JWTs, PEM private keys), passwords in
 * URLs, values of at least 8 characters under secret names (`"password": "…"`,
 * `API_KEY=…`), and long random-looking tokens (32+ characters mixing upper case, lower case
 * and digits with at least 4.2 bits of entropy per character). Pure and synchronous: the
 * checkpoint runs it on every result.
 *
 * @example
 * ```ts
 * scanSecrets("token: ghp_abcdefghijklmnopqrstuvwxyz0123456789");
 * // { status: "found", kinds: ["github token"], count: 1, masked: "token: ghp_***" }
 * ```
 */
export function scanSecrets(text: string): SecretScan {
  const kinds: string[] = [];
  let count = 0;
  const found = (kind: string) => {
    count += 1;
    if (!kinds.includes(kind)) kinds.push(kind);
  };
  // Each pass is skipped when a cheap test shows it cannot match: most results hold no secret.
  let masked = text.includes("://")
    ? text.replace(URL_PASSWORD, (_whole, head: string) => {
        found("url password");
        return `${head}***@`;
      })
    : text;
  for (const { kind, pattern, replacement } of CREDENTIAL_SHAPES) {
    pattern.lastIndex = 0;
    if (!pattern.test(masked)) continue;
    masked = masked.replace(pattern, (...match) => {
      found(kind);
      return replacement.replace(/\$(\d)/g, (_, n: string) => String(match[Number(n)] ?? ""));
    });
  }
  if (SECRET_WORD.test(masked)) {
    masked = masked.replace(NAMED_VALUE, (whole, quote: string, name: string, sep, value) => {
      const bare = String(value).replace(/^["']|["']$/g, "");
      if (!isSecretEnvName(name) || bare.length < MIN_NAMED_VALUE || bare.includes("***")) {
        return whole;
      }
      found("password");
      const q = /^["']/.test(value) ? (value[0] as string) : "";
      return `${quote}${name}${quote}${sep}${q}***${q}`;
    });
  }
  const random = randomTokens(masked);
  if (random.length > 0) {
    let out = "";
    let from = 0;
    for (const [start, end] of random) {
      found("high-entropy token");
      out += `${masked.slice(from, start)}***`;
      from = end;
    }
    masked = out + masked.slice(from);
  }
  return count === 0 ? CLEAN : { status: "found", kinds, count, masked };
}

/**
 * Where the runs of token characters (letters, digits, `+_=-`) of 32 or more that look random
 * are. `/` ends a run, so paths are not candidates. A loop over char codes: a regex for this
 * retries at every position inside every long word.
 */
function randomTokens(text: string): [number, number][] {
  const spans: [number, number][] = [];
  let start = -1;
  for (let i = 0; i <= text.length; i += 1) {
    const c = i < text.length ? text.charCodeAt(i) : 0;
    const token =
      (c >= 48 && c <= 57) ||
      (c >= 65 && c <= 90) ||
      (c >= 97 && c <= 122) ||
      c === 43 ||
      c === 95 ||
      c === 61 ||
      c === 45;
    if (token) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      if (i - start >= MIN_TOKEN && looksRandom(text.slice(start, i))) spans.push([start, i]);
      start = -1;
    }
  }
  return spans;
}

/** Mixed case and digits, and close to the entropy of random characters. */
function looksRandom(token: string): boolean {
  if (!/[a-z]/.test(token) || !/[A-Z]/.test(token) || !/[0-9]/.test(token)) return false;
  const counts = new Map<string, number>();
  for (const char of token) counts.set(char, (counts.get(char) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / token.length;
    bits -= p * Math.log2(p);
  }
  return bits >= MIN_ENTROPY_BITS;
}
