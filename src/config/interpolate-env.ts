// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} is the syntax this file implements.
import { DocketError } from "../errors/docket-error.js";
import { formatIssuePath, type IssuePath } from "../policy/policy-issue.js";

/** `${NAME}`, `${NAME:-default}`, and `$${` for a literal `${`. */
const REFERENCE = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Replace `${VAR}` and `${VAR:-default}` in every string value of a parsed YAML document with
 * the environment's values, so tokens and URLs need not be written into the file. `$${` stays a
 * literal `${`. An unset (or empty) variable without a default throws `config_invalid` with
 * `FILE:LINE`; so does a `${` that is not a reference, rather than pass on silently.
 *
 * @example
 * ```ts
 * interpolateEnv({ store: "${DB_URL:-sqlite:.docket/docket.db}" }, { env: {}, file: "docket.yaml", lines: new Map() });
 * // { store: "sqlite:.docket/docket.db" }
 * ```
 */
export function interpolateEnv(
  value: unknown,
  {
    env = process.env,
    file,
    lines,
  }: { env?: NodeJS.ProcessEnv; file: string; lines: ReadonlyMap<string, number> },
): unknown {
  const lineOf = (at: IssuePath): number => {
    for (let i = at.length; i >= 0; i -= 1) {
      const line = lines.get(formatIssuePath(at.slice(0, i)));
      if (line !== undefined) return line;
    }
    return 1;
  };
  // `sep` is " " where a ": " would make the message read as `NAME: value` and be masked.
  const fail = (at: IssuePath, reason: string, sep = ": "): never => {
    throw new DocketError(
      "config_invalid",
      `${file}:${lineOf(at)}: ${formatIssuePath(at)}${sep}${reason}`,
    );
  };
  const walk = (node: unknown, at: IssuePath): unknown => {
    if (typeof node === "string") {
      if (node.replace(REFERENCE, "").includes("${")) {
        fail(at, "a ${ that is not ${NAME} or ${NAME:-default} (write $${ for a literal one)");
      }
      return node.replace(REFERENCE, (match, name: string | undefined, fallback?: string) => {
        if (match === "$${" || name === undefined) return "${";
        const set = env[name];
        if (set !== undefined && set !== "") return set;
        if (fallback !== undefined) return fallback;
        return fail(
          at,
          `names \${${name}}, which is not set; set it, or write a default after :- inside the braces`,
          " ",
        );
      });
    }
    if (Array.isArray(node)) return node.map((item, index) => walk(item, [...at, index]));
    if (node !== null && typeof node === "object") {
      return Object.fromEntries(
        Object.entries(node).map(([key, item]) => [key, walk(item, [...at, key])]),
      );
    }
    return node;
  };
  return walk(value, []);
}
