import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { docketCacheDir } from "../shared/docket-cache-dir.js";
import { parseJson } from "../shared/parse-json.js";

/** A parsed YAML file without its name: the document as plain data and the line of each path. */
export interface ParsedYaml {
  readonly value: unknown;
  readonly lines: ReadonlyMap<string, number>;
}

/** Where the cache lives and what it is keyed by; every field has a default. */
export interface YamlParseCacheOptions {
  /**
   * The cache folder, or false for none. Default: `cache/parsed-yaml` in docket's user config
   * folder (`$XDG_CONFIG_HOME/docket`, else `~/.config/docket`), which every tool is refused and
   * the sandbox hides; none when `DOCKET_CACHE=off`.
   */
  readonly dir?: string | false;
  /** Part of every key, so another docket (whose parse may differ) never reads this one's. */
  readonly version?: string;
  readonly env?: NodeJS.ProcessEnv;
}

// Bumped whenever what is stored (or how the parse fills it) changes.
const FORMAT = 1;

/** The default folder, or undefined when the cache is turned off. */
function defaultDir(env: NodeJS.ProcessEnv): string | undefined {
  const cache = docketCacheDir(env);
  return cache === undefined ? undefined : path.join(cache, "parsed-yaml");
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/**
 * Only plain JSON survives a round trip through the cache unchanged: no `Infinity`, `NaN` or
 * `-0`, no object with another prototype or a `__proto__` key. Anything else is not cached.
 */
function isPlainJson(value: unknown, depth = 0): boolean {
  if (depth > 64) return false;
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value) && !Object.is(value, -0);
  if (Array.isArray(value)) return value.every((item) => isPlainJson(item, depth + 1));
  if (typeof value !== "object" || Object.getPrototypeOf(value) !== Object.prototype) return false;
  return Object.entries(value).every(
    ([key, item]) => key !== "__proto__" && isPlainJson(item, depth + 1),
  );
}

/** The entry's own digest: a torn, truncated or edited entry does not match it. */
function digestOf(key: string, value: unknown, lines: readonly (readonly [string, number])[]) {
  return sha256(JSON.stringify([FORMAT, key, value, lines]));
}

function readEntry(file: string, key: string): ParsedYaml | undefined {
  let entry: { format?: unknown; key?: unknown; value?: unknown; lines?: unknown; check?: unknown };
  try {
    entry = parseJson(readFileSync(file, "utf8")) as typeof entry;
  } catch {
    return undefined;
  }
  if (typeof entry !== "object" || entry === null) return undefined;
  const { format, value, lines, check } = entry;
  if (format !== FORMAT || entry.key !== key || !Array.isArray(lines)) return undefined;
  const map = new Map<string, number>();
  for (const pair of lines as unknown[]) {
    if (!Array.isArray(pair) || pair.length !== 2) return undefined;
    const [at, line] = pair as [unknown, unknown];
    if (typeof at !== "string" || !Number.isSafeInteger(line) || (line as number) < 1)
      return undefined;
    map.set(at, line as number);
  }
  if (check !== digestOf(key, value, lines as [string, number][])) return undefined;
  return { value, lines: map };
}

function writeEntry(dir: string, file: string, key: string, parsed: ParsedYaml): void {
  const lines = [...parsed.lines];
  const body = JSON.stringify({
    format: FORMAT,
    key,
    value: parsed.value,
    lines,
    check: digestOf(key, parsed.value, lines),
  });
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // Whole or not at all: a reader never sees half an entry.
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, body, { mode: 0o600 });
    renameSync(temporary, file);
  } catch {
    // A cache that cannot be written is only slower.
  }
}

/**
 * Parse YAML text through a cache shared by docket's processes: a cold `docket policy check`
 * then loads no YAML parser for a file it has seen. The key is the SHA-256 of the text itself
 * (with docket's version and the entry format), so any edit to a file is a miss and is parsed
 * afresh; an entry that is unreadable, of another format or whose digest does not match is
 * ignored and replaced. What comes back still goes through every check a fresh parse does
 * (sections, policy compilation), and the folder is docket's own (denied to every tool, hidden
 * by the sandbox), so it steers nothing an agent can write. Parse errors are never cached.
 *
 * @example
 * ```ts
 * declare const text: string; // the file's contents
 * declare const parseWithYaml: (text: string) => ParsedYaml; // the slow parse
 * const { value, lines } = cachedYamlParse(text, () => parseWithYaml(text), { version: "0.1.0" });
 * ```
 */
export function cachedYamlParse(
  text: string,
  parse: () => ParsedYaml,
  { env = process.env, version = "", ...options }: YamlParseCacheOptions = {},
): ParsedYaml {
  const dir = options.dir === undefined ? defaultDir(env) : options.dir || undefined;
  if (dir === undefined) return parse();
  const key = sha256(`${FORMAT}\0${version}\0${text}`);
  const file = path.join(dir, `${key}.json`);
  const hit = readEntry(file, key);
  if (hit !== undefined) return hit;
  const parsed = parse();
  if (isPlainJson(parsed.value)) writeEntry(dir, file, key, parsed);
  return parsed;
}
