import picomatch from "picomatch";

/** A compiled glob: answers whether a string matches. */
export type GlobTest = (value: string) => boolean;

/**
 * The picomatch options docket uses, declared here so that docket's published declarations need
 * no types from picomatch (whose types are a development-only package).
 */
export interface GlobOptions {
  /** Let `*` and `?` match a leading dot. */
  readonly dot?: boolean;
  /** Match regardless of letter case. */
  readonly nocase?: boolean;
}

// picomatch is lenient by default: an unbalanced bracket becomes a literal and an impossible
// range silently compiles to a regex that matches nothing. A policy glob that matches nothing is
// a rule that never fires, so both are load errors here.
const NEVER_MATCHES = "$^";
const GLOB_CHARS = /[*?[\]{}()!+@\\]/;

/**
 * Compile a picomatch glob strictly: empty patterns, unbalanced brackets, braces or parentheses
 * and patterns that can never match throw an `Error` whose message says what is wrong.
 *
 * @example
 * ```ts
 * compileGlob("mcp__github__*")("mcp__github__create_issue"); // true
 * compileGlob("a[b"); // throws: Missing closing: "]"
 * ```
 */
export function compileGlob(pattern: string, options: GlobOptions = {}): GlobTest {
  if (pattern.trim() === "") throw new Error("a glob must not be empty");
  // A plain name needs no regex: equality is exact and an order of magnitude faster.
  if (isLiteralGlob(pattern) && !options.nocase) return (value) => value === pattern;
  const strict = { ...options, strictBrackets: true };
  let regex: RegExp;
  try {
    regex = picomatch.makeRe(pattern, strict);
  } catch (error) {
    throw new Error(`bad glob ${JSON.stringify(pattern)}: ${(error as Error).message}`);
  }
  if (regex.source === NEVER_MATCHES) {
    throw new Error(`bad glob ${JSON.stringify(pattern)}: it can never match anything`);
  }
  return (value) => regex.test(value);
}

/**
 * Whether a pattern has no glob syntax at all, so it can be compared by equality (and indexed).
 *
 * @example
 * ```ts
 * isLiteralGlob("read_file"); // true
 * isLiteralGlob("mcp__*"); // false
 * ```
 */
export function isLiteralGlob(pattern: string): boolean {
  return !GLOB_CHARS.test(pattern);
}
