import { z } from "zod";
import type { FlowOptions } from "../checkpoint/flow-options.js";
import { compileGlob } from "../policy/compile-glob.js";
import type { SandboxSettings } from "../sandbox/sandbox-settings.js";

const glob = z.string().superRefine((text, ctx) => {
  try {
    compileGlob(text);
  } catch (error) {
    ctx.addIssue({ code: "custom", message: (error as Error).message });
  }
});

/**
 * docket.yaml's `flow:` section: what is private, which tools send data out, what a session
 * holding private data and untrusted content may send, and what the secret scanner does.
 *
 * @example
 * ```ts
 * flowSectionSchema.parse({ sensitive: ["data/customers/**", "db_query"], secrets: "mask", outward: "deny" });
 * ```
 */
export const flowSectionSchema = z.strictObject({
  outward: z.enum(["ask", "deny"]).optional(),
  secrets: z.enum(["off", "mask", "refuse"]).optional(),
  sensitive: z.array(glob).optional(),
  sends: z.record(glob, z.boolean()).optional(),
});

/** The `flow:` section as checked. */
export type FlowSection = z.output<typeof flowSectionSchema>;

/**
 * The checkpoint's `flow` option from the section. `run_command` is an outward channel when its
 * sandbox lets it reach a network (or there is no sandbox); a `sends:` entry overrides that.
 *
 * @example
 * ```ts
 * toFlowOptions({ secrets: "mask" }, { mode: "auto", network: "all" }); // { secrets: "mask", sends: { run_command: true } }
 * ```
 */
export function toFlowOptions(section: FlowSection, sandbox: SandboxSettings): FlowOptions {
  const network = sandbox.network ?? "none";
  const reachesOut = network !== "none" && network !== "loopback";
  const sends = { ...(reachesOut ? { run_command: true } : {}), ...(section.sends ?? {}) };
  return {
    ...(section.outward ? { outward: section.outward } : {}),
    ...(section.secrets ? { secrets: section.secrets } : {}),
    ...(section.sensitive ? { sensitive: section.sensitive } : {}),
    ...(Object.keys(sends).length > 0 ? { sends } : {}),
  };
}
