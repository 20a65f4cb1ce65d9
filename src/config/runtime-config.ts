import { z } from "zod";
import type { ApproverConfig } from "../approval/approver-directory.js";
import type { FlowOptions } from "../checkpoint/flow-options.js";
import { DocketError } from "../errors/docket-error.js";
import type { GatewaySettings } from "../gateway/gateway-settings.js";
import { type McpConfig, mcpConfigSchema } from "../mcp/mcp-config.js";
import { REASONING_LEVELS, type ReasoningLevel } from "../model/reasoning-level.js";
import { formatIssuePath } from "../policy/policy-issue.js";
import { forbiddenSandboxEnv } from "../sandbox/sandbox-env-guard.js";
import type { SandboxSettings } from "../sandbox/sandbox-settings.js";
import { flowSectionSchema, toFlowOptions } from "./flow-section.js";
import { gatewaySectionSchema, toGatewaySettings } from "./gateway-section.js";
import type { DocketConfig } from "./load-config.js";
import { parseDuration } from "./parse-duration.js";
import { sandboxSectionSchema, toSandboxSettings } from "./sandbox-section.js";
import { type TelemetrySection, telemetrySectionSchema } from "./telemetry-section.js";

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

/** Where one provider is reached: `model.providers.NAME` (and `model.base_url` for `name`'s). */
const endpoint = z.strictObject({
  base_url: z.url().optional(),
  api_key_env: z.string().min(1).optional(),
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
      name: z.string().min(1).optional(),
      base_url: z.url().optional(),
      api_key_env: z.string().optional(),
      providers: z.record(z.string().min(1), endpoint).optional(),
      reasoning: z.enum(REASONING_LEVELS).optional(),
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
  taint: z.strictObject({
    scope: z.enum(["run", "session"]).optional(),
    writes: z.enum(["ask", "allow"]).optional(),
  }),
  flow: flowSectionSchema,
  gateway: gatewaySectionSchema,
  system_prompt: z.string({ error: "expected text (a string; use | for several lines)" }),
  telemetry: telemetrySectionSchema,
};

/** Where a provider is reached, from docket.yaml. */
export interface ModelEndpoint {
  readonly baseUrl?: string;
  readonly apiKeyEnv?: string;
}

/** docket.yaml's sections other than `policy` and `mcp`, checked and with defaults applied. */
export interface RuntimeConfig {
  readonly principal: string;
  readonly workspace: string | undefined;
  readonly store: string | undefined;
  /**
   * The model: `name` (absent when only `providers` is set) and where each provider is reached.
   * `baseUrl`/`apiKeyEnv` are `providers[name's provider]`: they apply to that provider only.
   */
  readonly model:
    | {
        readonly name?: string;
        readonly baseUrl?: string;
        readonly apiKeyEnv?: string;
        readonly providers: Readonly<Record<string, ModelEndpoint>>;
        /** `model.reasoning`: V4's reasoning call option, for every turn. */
        readonly reasoning?: ReasoningLevel;
      }
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
  /** The `taint:` section: what untrusted content does to later writes (docs/untrusted-content.md). */
  readonly taint: { readonly scope?: "run" | "session"; readonly writes?: "ask" | "allow" };
  /** The `flow:` section: private data, outward channels, the secret scanner (docs/information-flow.md). */
  readonly flow: FlowOptions;
  /** The `gateway:` section: sessions, origins, taint scope, OAuth (docs/gateway.md). */
  readonly gateway: GatewaySettings;
  /** `system_prompt:`, replacing docket's own (the project's AGENTS.md is still appended). */
  readonly systemPrompt: string | undefined;
  /** The `telemetry:` section as written (see `telemetryConfig` for the environment's part). */
  readonly telemetry: TelemetrySection;
}

function toEndpoint(value: { base_url?: string | undefined; api_key_env?: string | undefined }) {
  return {
    ...(value.base_url ? { baseUrl: value.base_url } : {}),
    ...(value.api_key_env ? { apiKeyEnv: value.api_key_env } : {}),
  };
}

function modelSettings(model: z.output<typeof sectionSchemas.model>): RuntimeConfig["model"] {
  if (typeof model === "string") return { name: model, providers: {} };
  const providers: Record<string, ModelEndpoint> = {};
  for (const [name, value] of Object.entries(model.providers ?? {}))
    providers[name] = toEndpoint(value);
  const own = toEndpoint(model);
  const provider = model.name?.slice(0, Math.max(0, model.name.indexOf(":")));
  // base_url beside name is that provider's; it beats nothing written under providers.
  if (provider && (own.baseUrl || own.apiKeyEnv))
    providers[provider] = { ...providers[provider], ...own };
  return {
    ...(model.name ? { name: model.name } : {}),
    ...own,
    providers,
    ...(model.reasoning ? { reasoning: model.reasoning } : {}),
  };
}

/**
 * A value that matches no branch of a union (`model:` is a string or a mapping) is reported by
 * the branch that got furthest into it, so `model.reasoning: …` names the key, not `model`.
 */
function deepestIssue(issue: z.core.$ZodIssue | undefined): z.core.$ZodIssue | undefined {
  if (issue?.code !== "invalid_union" || issue.errors.length === 0) return issue;
  const branches = issue.errors.map((errors) => deepestIssue(errors[0]));
  const deepest = branches.reduce((best, next) =>
    (next?.path.length ?? 0) > (best?.path.length ?? 0) ? next : best,
  );
  if (!deepest || deepest.path.length === 0) return issue;
  return { ...deepest, path: [...issue.path, ...deepest.path] };
}

function check<S extends z.ZodType>(
  config: DocketConfig | undefined,
  key: keyof typeof sectionSchemas | "mcp",
  schema: S,
): z.output<S> | undefined {
  const value = config?.sections[key];
  if (value === undefined) return undefined;
  // Parsed once per process: zod's JIT (a function generated per object shape with `new
  // Function`) costs a cold `docket policy check` about 2-3 ms and pays only on repeated parses.
  const parsed = schema.safeParse(value, { jitless: true });
  if (parsed.success) return parsed.data;
  const issue = deepestIssue(parsed.error.issues[0]);
  const at = [key, ...(issue?.path ?? [])].map((part) =>
    typeof part === "number" ? part : String(part),
  );
  const path = at.map(String);
  let line: number | undefined;
  // The lines map writes list items as `[1]`, so an item's own line is found, not its list's.
  for (let i = at.length; i > 0 && line === undefined; i -= 1)
    line = config?.lines.get(formatIssuePath(at.slice(0, i)));
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
 * import { loadConfig } from "./load-config.js";
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
  const sandbox = toSandboxSettings(
    checkSandboxEnv(config, model, approversOf(config)),
    config?.file,
  );
  return {
    principal: check(config, "principal", sectionSchemas.principal) ?? "agent",
    workspace: check(config, "workspace", sectionSchemas.workspace),
    store: check(config, "store", sectionSchemas.store),
    model: model === undefined ? undefined : modelSettings(model),
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
    sandbox,
    taint: check(config, "taint", sectionSchemas.taint) ?? {},
    flow: toFlowOptions(check(config, "flow", sectionSchemas.flow) ?? {}, sandbox),
    gateway: toGatewaySettings(gateway),
    systemPrompt: check(config, "system_prompt", sectionSchemas.system_prompt),
    telemetry: check(config, "telemetry", sectionSchemas.telemetry) ?? {},
  };
}

function approversOf(config: DocketConfig | undefined) {
  return check(config, "approvers", sectionSchemas.approvers) ?? {};
}

/** The sandbox section, refused when `sandbox.env` names a credential of docket's own. */
function checkSandboxEnv(
  config: DocketConfig | undefined,
  model: z.output<typeof sectionSchemas.model> | undefined,
  approvers: z.output<typeof sectionSchemas.approvers>,
): z.output<typeof sandboxSectionSchema> {
  const section = check(config, "sandbox", sectionSchemas.sandbox) ?? {};
  const credentials = new Map<string, string>();
  for (const [name, entry] of Object.entries(approvers)) {
    if (entry.token_env) credentials.set(entry.token_env, `approvers.${name}.token_env`);
  }
  if (typeof model === "object" && model.api_key_env) {
    credentials.set(model.api_key_env, "model.api_key_env");
  }
  if (typeof model === "object") {
    for (const [provider, endpoint] of Object.entries(model.providers ?? {})) {
      if (endpoint.api_key_env)
        credentials.set(endpoint.api_key_env, `model.providers.${provider}.api_key_env`);
    }
  }
  (section.env ?? []).forEach((name, index) => {
    const why = forbiddenSandboxEnv(name, credentials);
    if (why === undefined) return;
    const line =
      config?.lines.get(`sandbox.env.${index}`) ??
      config?.lines.get("sandbox.env") ??
      config?.lines.get("sandbox");
    throw new DocketError(
      "config_invalid",
      `${config?.file}:${line ?? 1}: sandbox.env.${index}: ${why}; remove it from sandbox.env.`,
    );
  });
  return section;
}
