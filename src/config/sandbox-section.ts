import * as path from "node:path";
import { z } from "zod";
import type { SandboxSettings } from "../sandbox/sandbox-settings.js";
import { sandboxNetworkSchema, toNetworkFilter } from "./network-section.js";

const absoluteOrHome = z
  .string()
  .min(1)
  .refine((value) => !value.includes("\0"), "a path cannot contain a NUL byte");

const envName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "a variable name is letters, digits or _");

/**
 * The `sandbox:` section of docket.yaml: how `run_command` (and MCP servers with
 * `sandbox: true`) are confined.
 *
 * @example
 * ```ts
 * sandboxSectionSchema.parse({ mode: "required", network: "loopback", limits: { processes: 256 } });
 * ```
 */
export const sandboxSectionSchema = z.strictObject({
  mode: z.enum(["auto", "required", "off"]).optional(),
  network: sandboxNetworkSchema.optional(),
  env: z.array(envName).optional(),
  limits: z
    .strictObject({
      processes: z.number().int().min(8).max(1_000_000).optional(),
      memory_mb: z.number().int().min(64).max(16_777_216).optional(),
    })
    .optional(),
  hide: z.array(absoluteOrHome).optional(),
  writable: z.array(absoluteOrHome).optional(),
  walk_limit: z.number().int().positive().optional(),
  bwrap: z
    .string()
    .min(1)
    .refine((value) => !value.includes("\0"), "a program's path cannot contain a NUL byte")
    .optional(),
});

/**
 * Turn the checked section into settings: relative `hide` and `writable` paths are resolved
 * against the directory of docket.yaml, `~/` is left for the sandbox to expand.
 *
 * @example
 * ```ts
 * toSandboxSettings({ mode: "auto", hide: ["secrets.txt"] }, "/ws/docket.yaml");
 * // { mode: "auto", hide: ["/ws/secrets.txt"] }
 * ```
 */
export function toSandboxSettings(
  section: z.output<typeof sandboxSectionSchema>,
  configFile: string | undefined,
): SandboxSettings {
  const base = configFile ? path.dirname(path.resolve(configFile)) : process.cwd();
  const place = (entry: string) =>
    entry === "~" || entry.startsWith("~/") ? entry : path.resolve(base, entry);
  return {
    ...(section.mode ? { mode: section.mode } : {}),
    ...(section.network === undefined
      ? {}
      : {
          network:
            typeof section.network === "string"
              ? section.network
              : toNetworkFilter(section.network, "project"),
        }),
    ...(section.env ? { env: section.env } : {}),
    ...(section.limits
      ? {
          limits: {
            ...(section.limits.processes ? { processes: section.limits.processes } : {}),
            ...(section.limits.memory_mb ? { memoryMb: section.limits.memory_mb } : {}),
          },
        }
      : {}),
    ...(section.hide ? { hide: section.hide.map(place) } : {}),
    ...(section.writable ? { writable: section.writable.map(place) } : {}),
    ...(section.walk_limit ? { walkLimit: section.walk_limit } : {}),
    ...(section.bwrap ? { bwrapPath: section.bwrap } : {}),
  };
}
