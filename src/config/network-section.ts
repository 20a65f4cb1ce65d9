import { isIP } from "node:net";
import { z } from "zod";
import { compileHostPattern } from "../policy/host-pattern.js";
import type { SandboxNetworkFilter } from "../sandbox/network/network-filter.js";
import { parseDuration } from "./parse-duration.js";

const hostPatterns = z.array(
  z.string().superRefine((text, ctx) => {
    try {
      compileHostPattern(text);
    } catch (error) {
      ctx.addIssue({ code: "custom", message: (error as Error).message });
    }
  }),
);

/**
 * A filtered sandbox network in docket.yaml: host patterns (as policy `host` rules take them) to
 * allow, ask about or deny, names fixed to addresses (`hosts`), and how long an ask waits.
 *
 * @example
 * ```ts
 * networkFilterSchema.parse({ allow: ["registry.npmjs.org"], ask: ["*.github.com"], ask_timeout: "2m" });
 * ```
 */
export const networkFilterSchema = z.strictObject({
  allow: hostPatterns.optional(),
  ask: hostPatterns.optional(),
  deny: hostPatterns.optional(),
  hosts: z
    .record(
      z.string().regex(/^[A-Za-z0-9.-]+$/, "a host name is letters, digits, dots and dashes"),
      z.string().refine((value) => isIP(value) !== 0, "expected an IP address"),
    )
    .optional(),
  ask_timeout: z
    .union([z.string(), z.number()])
    .refine((value) => (parseDuration(value) ?? 0) > 0, "expected a duration such as 60s or 2m")
    .optional(),
});

/** `none`, `loopback`, `all`, or a filter. */
export const sandboxNetworkSchema = z.union([
  z.enum(["none", "loopback", "all"]),
  networkFilterSchema,
]);

/**
 * Turn a checked filter into settings: its rules become one layer named `layer`, over `below`
 * (the layers of the file that holds this one, which keep their vote: strictest wins).
 *
 * @example
 * ```ts
 * toNetworkFilter({ allow: ["registry.npmjs.org"] }, "project");
 * // { rules: [{ name: "project", allow: ["registry.npmjs.org"] }] }
 * ```
 */
export function toNetworkFilter(
  section: z.output<typeof networkFilterSchema>,
  layer: string,
  below?: SandboxNetworkFilter,
): SandboxNetworkFilter {
  const hosts = Object.fromEntries(
    Object.entries({ ...below?.hosts, ...section.hosts }).map(([name, address]) => [
      name.toLowerCase().replace(/\.$/, ""),
      address,
    ]),
  );
  const askTimeoutMs =
    section.ask_timeout === undefined ? below?.askTimeoutMs : parseDuration(section.ask_timeout);
  return {
    rules: [
      ...(below?.rules ?? []),
      {
        name: layer,
        ...(section.allow ? { allow: section.allow } : {}),
        ...(section.ask ? { ask: section.ask } : {}),
        ...(section.deny ? { deny: section.deny } : {}),
      },
    ],
    ...(Object.keys(hosts).length > 0 ? { hosts } : {}),
    ...(askTimeoutMs === undefined ? {} : { askTimeoutMs }),
  };
}
