import { existsSync } from "node:fs";
import { homedir } from "node:os";
import * as path from "node:path";
import { DocketError } from "../errors/docket-error.js";
import type { PolicyLayer } from "../policy/policy-rule.js";
import { type DocketConfig, loadConfig } from "./load-config.js";
import { policyLayerFrom } from "./policy-section.js";
import { linesUnder, readYamlSource } from "./yaml-source.js";

/** Which files hold policy. `false` skips a layer; a named file must exist. */
export interface PolicyFileOptions {
  /** docket.yaml. Default: `./docket.yaml` when it exists. */
  readonly projectFile?: string | false;
  /**
   * The user's policy. Default: `$XDG_CONFIG_HOME/docket/policy.yaml`, else
   * `~/.config/docket/policy.yaml`, when it exists.
   */
  readonly userFile?: string | false;
  /** The organisation's policy. Default: env `DOCKET_MANAGED_POLICY` (which must then exist). */
  readonly managedFile?: string | false;
  /** Environment to read `DOCKET_MANAGED_POLICY`, `XDG_CONFIG_HOME` and `HOME` from. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Directory for the default project file (default: the cwd). */
  readonly cwd?: string;
  /**
   * docket.yaml as the caller already loaded it (`loadConfig` of `projectFile`): its policy
   * layer is taken as it is rather than the file read and checked a second time. Used only when
   * its `file` is `projectFile`.
   */
  readonly projectConfig?: DocketConfig | undefined;
}

/**
 * Load the managed, user and project policy layers from their files. The user and managed files
 * have the same shape as docket.yaml's section: one top-level `policy:` key holding `defaults`
 * and `rules` (anything else is an error), so a section can be copied between files unchanged.
 * Every problem throws with its file and line; nothing is skipped.
 *
 * @example
 * ```ts
 * const layers = loadPolicyFiles({ projectFile: "docket.yaml" });
 * import { createPolicyEngine } from "../policy/policy-engine.js";
 * const engine = await createPolicyEngine({ layers });
 * ```
 */
export function loadPolicyFiles(options: PolicyFileOptions = {}): PolicyLayer[] {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const home = env.HOME ?? homedir();
  const layers: PolicyLayer[] = [];

  const managed = options.managedFile ?? (env.DOCKET_MANAGED_POLICY || false);
  if (managed !== false) layers.push(loadPolicyFile(managed, "managed", { home, cwd }));

  const configHome = env.XDG_CONFIG_HOME || path.join(home, ".config");
  const defaultUser = path.join(configHome, "docket", "policy.yaml");
  const user = options.userFile ?? (existsSync(defaultUser) ? defaultUser : false);
  if (user !== false) layers.push(loadPolicyFile(user, "user", { home, cwd }));

  const project =
    options.projectFile ?? (existsSync(path.join(cwd, "docket.yaml")) ? "docket.yaml" : false);
  if (project !== false) {
    const config =
      options.projectConfig?.file === project
        ? options.projectConfig
        : loadConfig(project, { home, cwd });
    if (config.policy !== undefined) layers.push(config.policy);
  }
  return layers;
}

/**
 * Load one policy file (user or managed): a top-level `policy:` key and nothing else.
 *
 * @example
 * ```ts
 * loadPolicyFile("/etc/docket/managed.yaml", "managed").rules?.length;
 * ```
 */
export function loadPolicyFile(
  file: string,
  name: string,
  options: { home?: string; cwd?: string } = {},
): PolicyLayer {
  const home = options.home ?? homedir();
  const source = readYamlSource(file, "policy_invalid", options.cwd);
  const value = source.value ?? {};
  const line = (key: string) => source.lines.get(key) ?? 1;
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new DocketError(
      "policy_invalid",
      `${file}:${line("")}: expected a mapping with one key, policy`,
    );
  }
  for (const key of Object.keys(value)) {
    if (key !== "policy") {
      throw new DocketError(
        "policy_invalid",
        `${file}:${line(key)}: ${key}: unknown top-level key (a policy file has only policy:, holding defaults, rules and network)`,
      );
    }
  }
  const section = (value as { policy?: unknown }).policy;
  if (section === undefined) return { name, rules: [], source: { file, lines: new Map() } };
  return policyLayerFrom(section, {
    name,
    source: { file, lines: linesUnder(source.lines, "policy") },
    home,
  });
}
