import type { PolicyArgs } from "../tool/tool.js";
import type { ToolMeta } from "./builtin-tool-meta.js";

const ROLES = ["path", "command", "url"] as const;

/**
 * Parse a `--tool` flag naming a tool that is not built in:
 * `NAME[:reads|:writes][:path=KEY][:command=KEY][:url=KEY]`. Without `:writes` the tool reads.
 * Throws an `Error` saying what is wrong.
 *
 * @example
 * ```ts
 * parseToolFlag("issue_refund:writes"); // { name: "issue_refund", meta: { writes: true, policyArgs: {} } }
 * parseToolFlag("mcp__fs__read:path=file"); // reads, policyArgs { path: "file" }
 * ```
 */
export function parseToolFlag(flag: string): { name: string; meta: ToolMeta } {
  const [name, ...parts] = flag.split(":");
  if (name === undefined || !/^[a-zA-Z0-9_-]{1,64}$/.test(name)) {
    throw new Error(
      `--tool ${JSON.stringify(flag)}: expected NAME[:writes][:path=KEY][:command=KEY][:url=KEY]`,
    );
  }
  let writes = false;
  const policyArgs: { -readonly [K in keyof PolicyArgs]: string } = {};
  for (const part of parts) {
    if (part === "writes" || part === "reads") {
      writes = part === "writes";
      continue;
    }
    const [role, key] = part.split("=", 2);
    if (!(ROLES as readonly string[]).includes(role ?? "") || key === undefined || key === "") {
      throw new Error(
        `--tool ${JSON.stringify(flag)}: unknown part ${JSON.stringify(part)} (use writes, reads, path=KEY, command=KEY or url=KEY)`,
      );
    }
    policyArgs[role as (typeof ROLES)[number]] = key;
  }
  return { name, meta: { writes, policyArgs } };
}
