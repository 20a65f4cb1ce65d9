/**
 * `command` patterns of policy rules, matched against the simple commands the analyser found.
 *
 * A pattern is words separated by blanks (any amount: matching is whitespace-insensitive).
 * - The first word names the program; the others match the arguments one for one.
 * - `*` as the LAST word matches zero or more remaining arguments (`git log *`).
 * - `*` as any other whole word matches exactly one argument (`git * --force`).
 * - `*` inside a word globs that word only (`--output=*`, `python3*`); it never spans words,
 *   and in the program word it does not cross `/`. `\*` is a literal star. `?` and `[` are
 *   literal characters.
 * - Words are compared with the command's argument vector after quote removal, so the pattern
 *   is written without quotes: `rm -rf /` matches `"rm" '-rf' /` and `\rm -rf /`.
 *
 * Program paths. For restricting rules (deny, ask) the program's base name is compared, without
 * regard to case (a case-insensitive file system runs `/BIN/RM` as rm): `rm *` matches `rm`,
 * `/bin/rm`, `./rm` and `/usr/local/bin/RM`; a pattern naming a path (`/bin/rm *`) is compared
 * by its base name too. For allow rules the program must be written exactly as in the pattern:
 * `ls *` allows `ls` but not `/tmp/evil/ls` or `./ls`; `/usr/bin/ls *` allows only that path.
 */
import { DocketError } from "../../errors/docket-error.js";
import type { SimpleCommand } from "./shell-analysis.js";

/** How one pattern word matches one argument. */
type WordMatcher =
  | { readonly kind: "any" }
  | { readonly kind: "literal"; readonly text: string }
  | { readonly kind: "glob"; readonly regex: RegExp };

/** A compiled `command` pattern; create with `compileCommandPattern`. */
export interface CommandPattern {
  /** The pattern as written, for explanations. */
  readonly source: string;
  /** The program word as written (a literal or a glob). */
  readonly program: string;
  readonly args: readonly WordMatcher[];
  /** Whether a trailing `*` accepts any further arguments. */
  readonly rest: boolean;
  /** The program word compiled for each mode (a string compares exactly). */
  readonly programFor: { readonly allow: RegExp | string; readonly restrict: RegExp | string };
}

/** Shell syntax in a pattern means the author expected string matching; refuse it. */
const FORBIDDEN = /[;&|<>()$`'"]|\p{Cc}/u;

function invalid(pattern: string, why: string): DocketError {
  return new DocketError(
    "invalid_command_pattern",
    `invalid command pattern ${JSON.stringify(pattern)}: ${why}`,
  );
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

/** Split on unescaped `*`, then join with `star` (a regex fragment). */
function globSource(word: string, star: string): string {
  let out = "";
  for (let i = 0; i < word.length; i++) {
    const ch = word[i] as string;
    if (ch === "\\" && word[i + 1] === "*") {
      out += "\\*";
      i++;
    } else if (ch === "*") {
      out += star;
    } else {
      out += escapeRegex(ch);
    }
  }
  return out;
}

function unescapeStars(word: string): string {
  return word.replace(/\\\*/g, "*");
}

function hasStar(word: string): boolean {
  return /(^|[^\\])\*/.test(word);
}

function argumentMatcher(word: string): WordMatcher {
  if (word === "*") return { kind: "any" };
  if (!hasStar(word)) return { kind: "literal", text: unescapeStars(word) };
  return { kind: "glob", regex: new RegExp(`^${globSource(word, "[\\s\\S]*")}$`) };
}

function baseName(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash >= 0 ? path.slice(slash + 1) : path;
}

/**
 * Compile a `command` pattern. Throws `DocketError("invalid_command_pattern")` for an empty
 * pattern, shell syntax (quotes, `;`, `|`, `$`, …) or a program word that is only `*`.
 *
 * @example
 * ```ts
 * const pattern = compileCommandPattern("git log *");
 * compileCommandPattern("ls; rm"); // throws DocketError invalid_command_pattern
 * ```
 */
export function compileCommandPattern(pattern: string): CommandPattern {
  if (typeof pattern !== "string") throw invalid(String(pattern), "a pattern must be a string");
  const words = pattern
    .trim()
    .split(/\s+/)
    .filter((w) => w !== "");
  const [program, ...rest] = words;
  if (program === undefined) throw invalid(pattern, "it is empty");
  if (FORBIDDEN.test(words.join(" "))) {
    throw invalid(
      pattern,
      "patterns are plain words matched after quote removal; remove quotes and shell syntax",
    );
  }
  if (program === "*" || program.replace(/\*/g, "") === "") {
    throw invalid(
      pattern,
      "the first word must name a program (use a tool rule to match every command)",
    );
  }
  const trailing = rest[rest.length - 1] === "*";
  const args = (trailing ? rest.slice(0, -1) : rest).map(argumentMatcher);
  const base = baseName(program);
  const programFor = {
    allow: hasStar(program)
      ? new RegExp(`^${globSource(program, "[^/]*")}$`)
      : unescapeStars(program),
    restrict: hasStar(base)
      ? new RegExp(`^${globSource(base, ".*")}$`, "i")
      : unescapeStars(base).toLowerCase(),
  };
  return { source: words.join(" "), program, args, rest: trailing, programFor };
}

function programMatches(
  pattern: CommandPattern,
  program: string,
  mode: "allow" | "restrict",
): boolean {
  const wanted = pattern.programFor[mode];
  if (mode === "restrict") {
    const actual = baseName(program);
    return typeof wanted === "string" ? wanted === actual.toLowerCase() : wanted.test(actual);
  }
  if (!pattern.program.includes("/") && program.includes("/")) return false;
  return typeof wanted === "string" ? wanted === program : wanted.test(program);
}

function argumentMatches(matcher: WordMatcher, arg: string): boolean {
  switch (matcher.kind) {
    case "any":
      return true;
    case "literal":
      return matcher.text === arg;
    case "glob":
      return matcher.regex.test(arg);
  }
}

/**
 * Whether a pattern matches a command. `mode` is `"allow"` for allow rules (a program path must
 * match literally) and `"restrict"` for deny and ask rules (base names, any case).
 *
 * @example
 * ```ts
 * const rm = compileCommandPattern("rm *");
 * matchesCommand(rm, { argv: ["/bin/rm", "-rf", "/"], program: "/bin/rm", text: "/bin/rm -rf /", depth: 0, via: [] }, "restrict"); // true
 * matchesCommand(compileCommandPattern("ls *"), { argv: ["/tmp/ls"], program: "/tmp/ls", text: "/tmp/ls", depth: 0, via: [] }, "allow"); // false
 * ```
 */
export function matchesCommand(
  pattern: CommandPattern,
  command: SimpleCommand,
  mode: "allow" | "restrict",
): boolean {
  const argv = command.argv;
  const program = argv[0];
  if (program === undefined) return false;
  const count = argv.length - 1;
  if (pattern.rest ? count < pattern.args.length : count !== pattern.args.length) return false;
  if (!programMatches(pattern, program, mode)) return false;
  for (let i = 0; i < pattern.args.length; i++) {
    if (!argumentMatches(pattern.args[i] as WordMatcher, argv[i + 1] as string)) return false;
  }
  return true;
}
