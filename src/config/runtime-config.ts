import { z } from "zod";
import type { ApproverConfig } from "../approval/approver-directory.js";
import { DocketError } from "../errors/docket-error.js";
import { type McpConfig, mcpConfigSchema } from "../mcp/mcp-config.js";
import type { SandboxSettings } from "../sandbox/sandbox-settings.js";
import type { DocketConfig } from "./load-config.js";
import { parseDuration } from "./parse-duration.js";
import { sandboxSectionSchema, toSandboxSettings } from "./sandbox-section.js";

const duration = z.union([z.number(), z.string()]).transform((value, ctx) => {
  const ms = parseDuration(value);
  if (ms === undefined) {
    ctx.addIssue({
      code: "custom",
      message: `"${value}" is not a duration (use 30s, 15m, 2h or milliseconds)`,
    });
    return z.NEVER;
  }
  return ms;
});

const principalName = z
  .string()
  .regex(/^[A-Za-z0-9._@-]{1,64}$/, "a principal is 1-64 letters, digits or . _ @ -");

const sectionSchemas = {
  principal: principalName,
  workspace: z.string().min(1),
  store: z.string().min(1),
  model: z.union([
    z.string().min(1),
    z.strictObject({
      name: z.string().min(1),
      base_url: z.url().optional(),
      api_key_env: z.string().optional(),
    }),
  ]),
  limits: z.strictObject({
    max_turns: z.number().int().positive().optional(),
    max_tool_calls_per_run: z.number().int().positive().optional(),
    max_tool_calls_per_batch: z.number().int().positive().optional(),
    max_tokens_per_run: z.number().int().positive().optional(),
    max_run: duration.optional(),
    result_bytes: z.number().int().positive().optional(),
    context_bytes: z.number().int().positive().optional(),
  }),
  approvers: z.record(
    principalName,
    z.strictObject({
      roles: z.array(z.string().min(1)).optional(),
      token_env: z.string().min(1).optional(),
      token_sha256: z.string().optional(),
    }),
  ),
  audit: z.strictObject({
    key_file: z.string().min(1).optional(),
    digests: z.string().min(1).optional(),
  }),
  approvals: z.strictObject({
    mode: z.enum(["wait", "suspend"]).optional(),
    expires: duration.optional(),
    default_approvers: z.array(z.string().min(1)).optional(),
  }),
  sandbox: sandboxSectionSchema,
  gateway: z.strictObject({
    max_sessions: z.number().int().min(1).max(10_000).optional(),
  }),
};

/** docket.yaml's sections other than `policy` and `mcp`, checked and with defaults applied. */
export interface RuntimeConfig {
  readonly principal: string;
  readonly workspace: string | undefined;
  readonly store: string | undefined;
  readonly model:
    | { readonly name: string; readonly baseUrl?: string; readonly apiKeyEnv?: string }
    | undefined;
  readonly limits: {
    readonly maxTurns?: number;
    readonly maxToolCallsPerRun?: number;
    readonly maxToolCallsPerBatch?: number;
    readonly maxTokensPerRun?: number;
    readonly maxRunMs?: number;
    readonly maxResultBytes?: number;
    readonly contextBytes?: number;
  };
  readonly approvers: Readonly<Record<string, ApproverConfig>>;
  /** The `audit:` section: the signing key file and the digest log (docs/audit.md). */
  readonly audit: { readonly keyFile?: string; readonly digests?: string };
  /** The `mcp:` section, checked: servers whose tools join the menu. */
  readonly mcp: McpConfig | undefined;
  readonly approvals: {
    readonly mode: "wait" | "suspend" | undefined;
    readonly expiresMs: number;
    readonly defaultApprovers: readonly string[];
  };
  /** The `sandbox:` section: how run_command is confined (mode auto when absent). */
  readonly sandbox: SandboxSettings;
  /** The `gateway:` section: how many HTTP client sessions it keeps (docs/gateway.md). */
  readonly gateway: { readonly maxSessions?: number };
}

function check<S extends z.ZodType>(
  config: DocketConfig | undefined,
  key: keyof typeof sectionSchemas | "mcp",
  schema: S,
): z.output<S> | undefined {
  const value = config?.sections[key];
  if (value === undefined) return undefined;
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const path = [key, ...(issue?.path ?? [])].map(String);
  let line: number | undefined;
  for (let i = path.length; i > 0 && line === undefined; i -= 1)
    line = config?.lines.get(path.slice(0, i).join("."));
  throw new DocketError(
    "config_invalid",
    `${config?.file}:${line ?? 1}: ${path.join(".")}: ${issue?.message ?? "invalid"}`,
  );
}

/**
 * Check docket.yaml's runtime sections (principal, workspace, store, model, limits, approvers,
 * approvals, sandbox) and fill in defaults. A bad value stops docket with the file, line and reason.
 *
 * @example
 * ```ts
 * const runtime = readRuntimeConfig(loadConfig("docket.yaml"));
 * runtime.approvals.expiresMs; // 900000 unless configured
 * ```
 */
export function readRuntimeConfig(config: DocketConfig | undefined): RuntimeConfig {
  const model = check(config, "model", sectionSchemas.model);
  const limits = check(config, "limits", sectionSchemas.limits) ?? {};
  const approvals = check(config, "approvals", sectionSchemas.approvals) ?? {};
  const audit = check(config, "audit", sectionSchemas.audit) ?? {};
  const gateway = check(config, "gateway", sectionSchemas.gateway) ?? {};
  return {
    principal: check(config, "principal", sectionSchemas.principal) ?? "agent",
    workspace: check(config, "workspace", sectionSchemas.workspace),
    store: check(config, "store", sectionSchemas.store),
    model:
      model === undefined
        ? undefined
        : typeof model === "string"
          ? { name: model }
          : {
              name: model.name,
              ...(model.base_url ? { baseUrl: model.base_url } : {}),
              ...(model.api_key_env ? { apiKeyEnv: model.api_key_env } : {}),
            },
    limits: {
      ...(limits.max_turns ? { maxTurns: limits.max_turns } : {}),
      ...(limits.max_tool_calls_per_run
        ? { maxToolCallsPerRun: limits.max_tool_calls_per_run }
        : {}),
      ...(limits.max_tool_calls_per_batch
        ? { maxToolCallsPerBatch: limits.max_tool_calls_per_batch }
        : {}),
      ...(limits.max_tokens_per_run ? { maxTokensPerRun: limits.max_tokens_per_run } : {}),
      ...(limits.max_run !== undefined ? { maxRunMs: limits.max_run } : {}),
      ...(limits.result_bytes ? { maxResultBytes: limits.result_bytes } : {}),
      ...(limits.context_bytes ? { contextBytes: limits.context_bytes } : {}),
    },
    approvers: check(config, "approvers", sectionSchemas.approvers) ?? {},
    mcp: check(config, "mcp", mcpConfigSchema) as McpConfig | undefined,
    audit: {
      ...(audit.key_file ? { keyFile: audit.key_file } : {}),
      ...(audit.digests ? { digests: audit.digests } : {}),
    },
    approvals: {
      mode: approvals.mode,
      expiresMs: approvals.expires ?? 15 * 60_000,
      defaultApprovers: approvals.default_approvers ?? [],
    },
    sandbox: toSandboxSettings(
      check(config, "sandbox", sectionSchemas.sandbox) ?? {},
      config?.file,
    ),
    gateway: gateway.max_sessions === undefined ? {} : { maxSessions: gateway.max_sessions },
  };
}
