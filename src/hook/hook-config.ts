import { z } from "zod";
import type { DocketConfig } from "../config/load-config.js";
import { parseDuration } from "../config/parse-duration.js";
import { DocketError } from "../errors/docket-error.js";
import { HOST_NAMES, type HostName } from "./host-name.js";
import type { HostToolMapping, HostToolTable } from "./host-tables.js";

/**
 * What a hook does with a call the policy answers `ask`: `host` hands it to the host's own
 * permission prompt (recording what happened from the after event), `wait` waits for a docket
 * approval (any channel: terminal, `docket approvals`, HTTP) up to `waitMs` and then denies,
 * `deny` denies at once.
 */
export type AskMode = "host" | "wait" | "deny";

/** docket.yaml's `hooks:` section, checked, for one host. */
export interface HookSettings {
  readonly ask: AskMode;
  readonly waitMs: number;
  /** docket's own deadline for an answer (besides a `wait`): past it, the answer is deny. */
  readonly timeoutMs: number;
  readonly tools: HostToolTable;
}

/**
 * Where a host can show its own prompt for an ask. Codex ignores `ask` and opencode's is never
 * called, so for them the default is a docket approval wait.
 */
const DEFAULT_ASK: Readonly<Record<HostName, AskMode>> = {
  "claude-code": "host",
  "gemini-cli": "host",
  codex: "wait",
  opencode: "wait",
};
const CAN_ASK_HOST: ReadonlySet<HostName> = new Set(["claude-code", "gemini-cli"]);

const duration = z.union([z.number(), z.string()]).transform((value, ctx) => {
  const ms = parseDuration(value);
  if (ms === undefined) {
    ctx.addIssue({ code: "custom", message: `"${value}" is not a duration (use 30s, 2m or ms)` });
    return z.NEVER;
  }
  return ms;
});
const askMode = z.enum(["host", "wait", "deny"]);
const hostName = z.enum(HOST_NAMES);
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
});

/**
 * Read the `hooks:` section for one host, with defaults: ask `host` for Claude Code and
 * gemini-cli, `wait` for Codex and opencode; wait 2 minutes; timeout 10 seconds. A bad value
 * stops docket with the file, line and reason; `ask: host` for a host without a prompt of its
 * own is refused, never quietly run.
 *
 * @example
 * ```ts
 * hookSettings(loadConfig("docket.yaml"), "codex"); // { ask: "wait", waitMs: 120000, timeoutMs: 10000, tools: {} }
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
  const ask = (typeof data.ask === "string" ? data.ask : data.ask?.[host]) ?? DEFAULT_ASK[host];
  if (ask === "host" && !CAN_ASK_HOST.has(host)) {
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
  return { ask, waitMs: data.wait ?? 120_000, timeoutMs: data.timeout ?? 10_000, tools };
}
