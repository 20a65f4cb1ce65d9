import { z } from "zod";
import type { DocketConfig } from "../config/load-config.js";
import { parseDuration } from "../config/parse-duration.js";
import { DocketError } from "../errors/docket-error.js";
import type { AskMode } from "./host-adapter.js";
import { HOST_NAMES, type HostName, hostAdapter } from "./host-registry.js";
import type { HostToolMapping, HostToolTable } from "./host-tool-mapping.js";

export type { AskMode } from "./host-adapter.js";

/** docket.yaml's `hooks:` section, checked, for one host. */
export interface HookSettings {
  readonly ask: AskMode;
  readonly waitMs: number;
  /** docket's own deadline for an answer (besides a `wait`): past it, the answer is deny. */
  readonly timeoutMs: number;
  readonly tools: HostToolTable;
  /**
   * The host's MCP servers whose results are not text from outside (`hooks.trusted_servers`):
   * every other server's results taint the session, as an untrusted `mcp:` server's do.
   */
  readonly trustedServers: ReadonlySet<string>;
}

const duration = z.union([z.number(), z.string()]).transform((value, ctx) => {
  const ms = parseDuration(value);
  if (ms === undefined) {
    ctx.addIssue({ code: "custom", message: `"${value}" is not a duration (use 30s, 2m or ms)` });
    return z.NEVER;
  }
  return ms;
});
const askMode = z.enum(["host", "wait", "deny"]);
const hostName = z.enum(HOST_NAMES as [HostName, ...HostName[]]);
const mapping = z.strictObject({
  tool: z.string().min(1),
  writes: z.boolean(),
  command: z.string().min(1).optional(),
  path: z.string().min(1).optional(),
  url: z.string().min(1).optional(),
});
const section = z.strictObject({
  ask: z.union([askMode, z.partialRecord(hostName, askMode)]).optional(),
  wait: duration.optional(),
  timeout: duration.optional(),
  tools: z.partialRecord(hostName, z.record(z.string().min(1), mapping)).optional(),
  trusted_servers: z.array(z.string().min(1)).optional(),
});

/**
 * Read the `hooks:` section for one host, with defaults: ask `host` for Claude Code and
 * gemini-cli, `wait` for Codex and opencode; wait 2 minutes; timeout 10 seconds. A bad value
 * stops docket with the file, line and reason; `ask: host` for a host without a prompt of its
 * own is refused, never quietly run.
 *
 * @example
 * ```ts
 * import { loadConfig } from "../config/load-config.js";
 * hookSettings(loadConfig("docket.yaml"), "codex"); // { ask: "wait", waitMs: 120000, timeoutMs: 10000, tools: {}, trustedServers: Set {} }
 * ```
 */
export function hookSettings(config: DocketConfig | undefined, host: HostName): HookSettings {
  const value = config?.sections.hooks;
  const parsed = section.safeParse(value ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = ["hooks", ...(issue?.path ?? []).map(String)];
    let line: number | undefined;
    for (let i = path.length; i > 0 && line === undefined; i -= 1)
      line = config?.lines.get(path.slice(0, i).join("."));
    throw new DocketError(
      "config_invalid",
      `${config?.file}:${line ?? 1}: ${path.join(".")}: ${issue?.message ?? "invalid"}`,
    );
  }
  const data = parsed.data;
  const { asking } = hostAdapter(host);
  const ask = (typeof data.ask === "string" ? data.ask : data.ask?.[host]) ?? asking.defaultMode;
  if (ask === "host" && !asking.hostPrompt) {
    throw new DocketError(
      "config_invalid",
      `${config?.file}:${config?.lines.get("hooks.ask") ?? 1}: hooks.ask: ${host} does not honour "ask" (it would run the call); use wait or deny`,
    );
  }
  const tools: Record<string, HostToolMapping> = {};
  for (const [name, entry] of Object.entries(data.tools?.[host] ?? {})) {
    tools[name] = {
      tool: entry.tool,
      writes: entry.writes,
      policyArgs: {
        ...(entry.command ? { command: entry.command } : {}),
        ...(entry.path ? { path: entry.path } : {}),
        ...(entry.url ? { url: entry.url } : {}),
      },
    };
  }
  return {
    ask,
    waitMs: data.wait ?? 120_000,
    timeoutMs: data.timeout ?? 10_000,
    tools,
    trustedServers: new Set(data.trusted_servers ?? []),
  };
}
