import { DocketError } from "../errors/docket-error.js";
import type { PolicyLayer } from "../policy/policy-rule.js";
import { interpolateEnv } from "./interpolate-env.js";
import { policyLayerFrom } from "./policy-section.js";
import { linesUnder, readYamlSource } from "./yaml-source.js";

/**
 * The top-level sections docket.yaml may have. Only `policy` is validated here; the others
 * belong to their own modules, which validate them with the same line numbers.
 */
export const CONFIG_SECTIONS = [
  "policy",
  "principal",
  "approvers",
  "approvals",
  "store",
  "model",
  "mcp",
  "limits",
  "workspace",
  "sandbox",
  "gateway",
  "audit",
  "taint",
  "flow",
  "system_prompt",
  "telemetry",
  "hooks",
] as const;

/** A loaded docket.yaml. */
export interface DocketConfig {
  /** The file as named by the caller. */
  readonly file: string;
  /** Every top-level section as plain data. */
  readonly sections: Readonly<Partial<Record<(typeof CONFIG_SECTIONS)[number], unknown>>>;
  /** The `policy:` section as the project layer, already checked; undefined without one. */
  readonly policy: PolicyLayer | undefined;
  /** 1-based line by path (`policy.rules[2].when`), for other sections' error messages. */
  readonly lines: ReadonlyMap<string, number>;
}

/**
 * Read docket.yaml: YAML with line numbers, only known top-level sections, and a `policy:`
 * section that compiles completely. Problems throw `DocketError` with `FILE:LINE: problem`:
 * `config_invalid` for the file and its top level, `policy_invalid` inside `policy:`. A relative
 * `file` is read from `options.cwd` (default: the process's) and named in messages as given.
 * `${VAR}` and `${VAR:-default}` in string values are replaced from `options.env` (default:
 * the process's); an unset variable without a default is a `config_invalid` with its line.
 * The policy layer and the `policy:` section it came from are frozen: the engine reuses the
 * compile checked here, so a change to them would be judged by rules nobody checked. Copy
 * them to change them (`{ ...config.policy, rules: [...] }` is compiled afresh).
 *
 * @example
 * ```ts
 * const config = loadConfig("docket.yaml");
 * import { createPolicyEngine } from "../policy/policy-engine.js";
 * const engine = await createPolicyEngine({ layers: config.policy ? [config.policy] : [] });
 * ```
 */
export function loadConfig(
  file: string,
  options: { layerName?: string; home?: string; cwd?: string; env?: NodeJS.ProcessEnv } = {},
): DocketConfig {
  const source = readYamlSource(file, "config_invalid", options.cwd);
  const value = source.value ?? {};
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new DocketError(
      "config_invalid",
      `${file}:${source.lines.get("") ?? 1}: expected a mapping of sections (${CONFIG_SECTIONS.join(", ")})`,
    );
  }
  for (const key of Object.keys(value)) {
    if (!(CONFIG_SECTIONS as readonly string[]).includes(key)) {
      throw new DocketError(
        "config_invalid",
        `${file}:${source.lines.get(key) ?? 1}: ${key}: unknown top-level key (docket.yaml has ${CONFIG_SECTIONS.join(", ")})`,
      );
    }
  }
  const sections = interpolateEnv(value, {
    file,
    lines: source.lines,
    ...(options.env === undefined ? {} : { env: options.env }),
  }) as Record<string, unknown>;
  const policy =
    "policy" in sections
      ? policyLayerFrom(sections.policy, {
          name: options.layerName ?? "project",
          source: { file, lines: linesUnder(source.lines, "policy") },
          ...(options.home === undefined ? {} : { home: options.home }),
        })
      : undefined;
  return { file, sections, policy, lines: source.lines };
}
