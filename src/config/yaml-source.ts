import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import type { Node } from "yaml";
import { packageRoot } from "../cli/package-root.js";
import { DocketError, type DocketErrorCode } from "../errors/docket-error.js";
import { formatIssuePath, type IssuePath } from "../policy/policy-issue.js";
import { cachedYamlParse } from "./yaml-parse-cache.js";

let yamlModule: typeof import("yaml") | undefined;
/** The YAML parser, loaded on the first file the parse cache does not hold. */
function yaml(): typeof import("yaml") {
  yamlModule ??= createRequire(import.meta.url)("yaml") as typeof import("yaml");
  return yamlModule;
}

let docketVersion: string | undefined;
function version(): string {
  try {
    docketVersion ??= packageRoot().version;
  } catch {
    docketVersion = "unknown";
  }
  return docketVersion;
}

/** A YAML file read as plain data, with the line of every key and list item. */
export interface YamlSource {
  /** The file as the caller named it (used in messages). */
  readonly file: string;
  /** The document as plain data (`null` for an empty file). */
  readonly value: unknown;
  /** 1-based line by path: `policy.rules[2].when` → 12; `""` is the document itself. */
  readonly lines: ReadonlyMap<string, number>;
}

/**
 * Read and parse a YAML file, keeping line numbers. A file that cannot be read or does not parse
 * throws `DocketError(code)` with `FILE:LINE: problem`. A relative `file` is read from `cwd`
 * (default: the process's) and named in messages as given. A text parsed before (by any docket
 * process) comes from the parse cache (`cachedYamlParse`).
 *
 * @example
 * ```ts
 * const source = readYamlSource("docket.yaml", "config_invalid");
 * source.lines.get("policy.rules[0].decision"); // 4
 * ```
 */
export function readYamlSource(file: string, code: DocketErrorCode, cwd?: string): YamlSource {
  let text: string;
  try {
    text = readFileSync(cwd === undefined ? file : path.resolve(cwd, file), "utf8");
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === "ENOENT"
        ? "no such file"
        : (error as Error).message;
    throw new DocketError(code, `${file}: cannot read: ${reason}`, { cause: error });
  }
  const parsed = cachedYamlParse(text, () => parseYamlSource(text, file, code), {
    version: version(),
  });
  return { file, value: parsed.value, lines: parsed.lines };
}

/**
 * Parse YAML text as `readYamlSource` does.
 *
 * @example
 * ```ts
 * parseYamlSource("a: [1", "x.yaml", "config_invalid"); // throws "x.yaml:1: …"
 * ```
 */
export function parseYamlSource(text: string, file: string, code: DocketErrorCode): YamlSource {
  const { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument } = yaml();
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, keepSourceTokens: true, prettyErrors: false });
  const [error] = doc.errors;
  if (error !== undefined) {
    const line = error.linePos?.[0]?.line ?? lineCounter.linePos(error.pos[0]).line;
    const message = error.message.replace(/\s+at line \d+, column \d+:?[\s\S]*$/, "");
    throw new DocketError(code, `${file}:${line}: YAML: ${message}`);
  }
  let value: unknown;
  try {
    value = doc.toJS();
  } catch (cause) {
    throw new DocketError(code, `${file}: YAML: ${(cause as Error).message}`, { cause });
  }
  const lines = new Map<string, number>();
  const lineAt = (node: { range?: readonly number[] | null } | null | undefined) =>
    node?.range ? lineCounter.linePos(node.range[0] ?? 0).line : undefined;
  const walk = (node: Node | null | undefined, path: IssuePath): void => {
    if (node === null || node === undefined || isAlias(node)) return;
    if (isMap(node)) {
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        const at = [...path, key];
        const line = lineAt(pair.key as Node) ?? lineAt(pair.value as Node);
        if (line !== undefined) lines.set(formatIssuePath(at), line);
        walk(pair.value as Node, at);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, index) => {
        const at = [...path, index];
        const line = lineAt(item as Node);
        if (line !== undefined) lines.set(formatIssuePath(at), line);
        walk(item as Node, at);
      });
    }
  };
  lines.set("", lineAt(doc.contents as Node) ?? 1);
  walk(doc.contents as Node, []);
  return { file, value, lines };
}

/**
 * The lines of a subtree, keyed relative to it: `policy.rules[2]` → `rules[2]`.
 *
 * @example
 * ```ts
 * const source = readYamlSource("docket.yaml", "config_invalid");
 * linesUnder(source.lines, "policy").get("rules[2].when"); // 12
 * ```
 */
export function linesUnder(
  lines: ReadonlyMap<string, number>,
  prefix: string,
): Map<string, number> {
  const result = new Map<string, number>();
  for (const [key, line] of lines) {
    if (key === prefix) result.set("", line);
    else if (key.startsWith(`${prefix}.`)) result.set(key.slice(prefix.length + 1), line);
    else if (key.startsWith(`${prefix}[`)) result.set(key.slice(prefix.length), line);
  }
  return result;
}
