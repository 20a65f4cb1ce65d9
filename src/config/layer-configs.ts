import { DocketError } from "../errors/docket-error.js";
import type { DocketConfig } from "./load-config.js";

/** What the user file (`~/.config/docket/config.yaml`) may hold: personal, not project, settings. */
export const USER_SECTIONS = ["model", "approvers", "mcp"] as const;

/** The merged configuration, and for each value the file and line it came from. */
export interface LayeredConfig {
  readonly config: DocketConfig | undefined;
  /** `model` → `docket.yaml:4`, `approvers.alice` → `~/.config/docket/config.yaml:2`. */
  readonly origins: ReadonlyMap<string, string>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * Put the project file over the user file, as Claude Code puts project settings over user
 * settings: a section the project sets wins whole, except `approvers` and `mcp.servers`, which
 * merge by name (the project's entry wins a name both define). The user file holds only
 * `model`, `approvers` and `mcp`; anything else there is a `config_invalid` with its line.
 *
 * @example
 * ```ts
 * import { loadConfig } from "./load-config.js";
 * const { config, origins } = layerConfigs({ user: loadConfig("~/.docket/config.yaml"), project: loadConfig("docket.yaml") });
 * origins.get("model"); // "docket.yaml:3"
 * ```
 */
export function layerConfigs({
  user,
  project,
}: {
  user?: DocketConfig | undefined;
  project?: DocketConfig | undefined;
}): LayeredConfig {
  const origins = new Map<string, string>();
  const note = (layer: DocketConfig, key: string) =>
    origins.set(key, `${layer.file}:${layer.lines.get(key) ?? 1}`);
  for (const key of Object.keys(user?.sections ?? {})) {
    if (user && !(USER_SECTIONS as readonly string[]).includes(key)) {
      throw new DocketError(
        "config_invalid",
        `${user.file}:${user.lines.get(key) ?? 1}: ${key}: not a user setting (the user file holds ${USER_SECTIONS.join(", ")}; put ${key} in the project's docket.yaml)`,
      );
    }
  }
  const sections: Record<string, unknown> = {};
  for (const layer of [user, project]) {
    if (layer === undefined) continue;
    for (const [key, value] of Object.entries(layer.sections)) {
      const below = sections[key];
      if (key === "approvers" && isRecord(value) && isRecord(below)) {
        sections[key] = { ...below, ...value };
        for (const name of Object.keys(value)) note(layer, `approvers.${name}`);
      } else if (key === "mcp" && isRecord(value) && isRecord(below)) {
        const servers = { ...(isRecord(below.servers) ? below.servers : {}) };
        if (isRecord(value.servers)) Object.assign(servers, value.servers);
        sections[key] = { ...below, ...value, servers };
        for (const name of Object.keys(isRecord(value.servers) ? value.servers : {}))
          note(layer, `mcp.servers.${name}`);
      } else {
        sections[key] = value;
        for (const path of [...origins.keys()])
          if (path.startsWith(`${key}.`)) origins.delete(path);
        note(layer, key);
        const entries = key === "mcp" && isRecord(value) ? value.servers : value;
        const prefix = key === "mcp" ? "mcp.servers" : key;
        if (isRecord(entries))
          for (const name of Object.keys(entries)) note(layer, `${prefix}.${name}`);
      }
    }
  }
  const base = project ?? user;
  if (base === undefined) return { config: undefined, origins };
  // Line numbers for checks stay the project's; user values were checked against their own file.
  return { config: { ...base, sections }, origins };
}
