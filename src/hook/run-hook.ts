import { homedir } from "node:os";
import { resolve } from "node:path";
import { createCheckpoint } from "../checkpoint/create-checkpoint.js";
import type { Preflight } from "../checkpoint/host-call.js";
import type { Runtime } from "../cli/build-runtime.js";
import { maskSecrets } from "../shared/mask-secrets.js";
import { parseJson } from "../shared/parse-json.js";
import { defineTool } from "../tool/define-tool.js";
import type { Tool, ToolConfinement } from "../tool/tool.js";
import { containVerdict, hostConfinement, uncontainedInput } from "./contain-command.js";
import { guardHostSettings } from "./guard-host-settings.js";
import { failClosed, type HookReply, type HookVerdict } from "./hook-answer.js";
import { hookApprover } from "./hook-approver.js";
import { guardHookCall } from "./hook-call-guards.js";
import { hookSettings } from "./hook-config.js";
import { type HookEvent, readHookEvent } from "./hook-event.js";
import { durableAnswer, ensureHookSession, findHookCall } from "./hook-session-records.js";
import { hostInputSchema } from "./host-input-schema.js";
import { type HostName, hostAdapter } from "./host-registry.js";
import type { HostToolMapping } from "./host-tool-mapping.js";
import { mapHostTool, unmappedToolReason } from "./map-host-tool.js";
import { openHookRuntime } from "./open-hook-runtime.js";
import { sessionTaint } from "./session-taint.js";
import { settleAskedCalls } from "./settle-asked-calls.js";
import type { SettleEvent } from "./settle-event.js";

/** What one hook invocation is given. */
export interface RunHookOptions {
  readonly host: HostName;
  /** The payload the host wrote on standard input. */
  readonly text: string;
  readonly config?: string | undefined;
  readonly store?: string | undefined;
  readonly env?: NodeJS.ProcessEnv;
  /** Told docket's deadline once the settings are read (the guard's timer follows it). */
  readonly onDeadline?: (ms: number) => void;
  /** A runtime kept open across calls (`docket hook serve`); without one, each call opens its own. */
  readonly runtime?: Runtime;
  /**
   * Whether the host runs headless, where its own prompt cannot answer an ask (default: its
   * adapter's probe of the processes above this one); undefined when unknown.
   */
  readonly hostHeadless?: () => boolean | undefined;
  /** The hook's working folder (default this process's): a daemon is given its client's. */
  readonly cwd?: string;
  /** Ends the call's wait (an approval's) when whoever asked is gone: the call is refused. */
  readonly signal?: AbortSignal;
}

/**
 * The tool a host call is judged as: docket's name and flags from the host's table, and a schema
 * that holds the mapped keys to their types (a command or URL must be text), any other key the
 * host sends being its own. Its handler is never reached: the host runs the tool.
 */
function hostTool(mapping: HostToolMapping, confinement: ToolConfinement | undefined): Tool {
  return defineTool({
    name: mapping.tool,
    description: `${mapping.tool} as run by the host`,
    input: hostInputSchema(mapping.policyArgs),
    writes: mapping.writes,
    policyArgs: mapping.policyArgs,
    ...(mapping.openWorld ? { openWorld: true } : {}),
    ...(confinement ? { confinement } : {}),
    handler: () => {
      throw new Error("the host runs this tool; docket only decides");
    },
  });
}

function verdictOf(result: Preflight): HookVerdict {
  switch (result.status) {
    case "cleared":
      return {
        type: "allow",
        reason: result.rule ? `docket: allowed by rule ${result.rule}` : "docket: allowed",
      };
    case "awaiting_approval":
      return { type: "ask", reason: `docket asks: ${result.message}` };
    default:
      return { type: "deny", reason: `docket: ${result.message}` };
  }
}

/**
 * Answer one hook call: read the payload, open docket's policy, store and approvals, send the call
 * through the checkpoint's decide-only pass (before), record the host's outcome (after), look
 * for a docket approval (permission), or close the asked calls the host never ran (settle).
 * Throws only what the guard turns into a deny; a settle event never throws, and blocks nothing.
 *
 * @example
 * ```ts
 * declare const payload: string; // the hook's stdin, as the host sent it
 * const reply = await runHook({ host: "claude-code", text: payload });
 * process.stdout.write(reply.stdout);
 * ```
 */
export async function runHook(options: RunHookOptions): Promise<HookReply> {
  const { host } = options;
  const adapter = hostAdapter(host);
  const reading = readHookEvent(host, options.text);
  if (reading.status === "unreadable")
    return failClosed(`unreadable hook payload: ${reading.problem}`);
  if (reading.status === "ignored") return adapter.reply("", { type: "none" });
  if (reading.status === "settle") return settle(options, reading.event);
  const eventName = (parseJson(options.text) as { hook_event_name: string }).hook_event_name;
  const runtime = options.runtime ?? (await openHookRuntime(options));
  try {
    // As last loaded: a daemon's edits of docket.yaml reach hooks:, taint and flow (ADR 0104).
    const cli = runtime.latestCli();
    const settings = hookSettings(cli.config, host);
    const read = reading.event;
    const mcpServers = cli.runtime.mcp?.servers ?? {};
    const mapping = mapHostTool(
      host,
      read.toolName,
      settings.tools,
      (server) => settings.trustedServers.has(server) || mcpServers[server]?.trusted === true,
    );
    if (mapping === undefined) return await unmapped(runtime, read, eventName);
    // A host may report the input docket's answer rewrote: pair and record the one it judged.
    const event =
      read.kind === "after"
        ? { ...read, inputText: uncontainedInput(read.inputText, mapping) }
        : read;
    if (event.kind === "permission") {
      return adapter.reply(eventName, await durableAnswer(runtime.store, event, mapping));
    }
    options.onDeadline?.(settings.timeoutMs + (settings.ask === "wait" ? settings.waitMs : 0));
    // Probed meanwhile: the store's reads below hide the sandbox probe's processes.
    const confining =
      event.kind === "before" ? hostConfinement(adapter, mapping, runtime) : undefined;
    await ensureHookSession(runtime.store, event, runtime.configHash);
    const headless = options.hostHeadless ?? adapter.asking.headless ?? (() => undefined);
    const approvals = hookApprover(runtime, settings, host, headless);
    const roots = [options.cwd ?? process.cwd(), runtime.workspace, homedir()];
    const earlier =
      event.kind === "before" ? await sessionTaint(runtime.store, event.sessionId) : [];
    const confinement = await confining;
    const checkpoint = createCheckpoint({
      tools: [hostTool(mapping, confinement)],
      policy: guardHookCall(
        guardHostSettings(runtime.policy, roots),
        mapping,
        runtime.workspace,
        adapter.keystrokesTool,
      ),
      store: runtime.store,
      principal: host,
      taint: {
        ...cli.runtime.taint,
        earlier: { sessionId: event.sessionId, sources: earlier },
      },
      flow: { ...cli.runtime.flow, workspace: runtime.workspace },
      ...(approvals ? { approvals } : {}),
    });
    if (event.kind === "after") {
      const found = await findHookCall(runtime.store, event);
      await checkpoint.recordOutcome({
        callId: found.callId,
        name: mapping.tool,
        sessionId: event.sessionId,
        status: event.failed ? "failed" : "ok",
        output: event.response,
        arguments: event.inputText,
        source: sourceOf(mapping, event),
        ...(found.asked ? { approvedBy: `${host}:prompt` } : {}),
      });
      return adapter.reply(eventName, { type: "none" });
    }
    const result = await checkpoint.preflight(
      { id: event.callId, name: mapping.tool, arguments: event.inputText },
      { sessionId: event.sessionId, principal: host, signal: options.signal },
    );
    // Absolute: the host's shell may have changed folder since (`cd sub && …` in an earlier call).
    const configFile = runtime.cli.projectFile && resolve(runtime.cli.projectFile);
    const target = {
      configFile,
      storeUrl: runtime.cli.storeUrl,
      call: { sessionId: event.sessionId, callId: event.callId },
    };
    return adapter.reply(
      eventName,
      containVerdict(verdictOf(result), {
        mapping,
        inputText: event.inputText,
        confinement,
        target,
      }),
    );
  } finally {
    if (!options.runtime) await runtime.close();
  }
}

/** An open-world result's origin in words: the tool and the URL its host input names, if any. */
function sourceOf(mapping: HostToolMapping, event: HookEvent): string {
  const key = mapping.policyArgs.url;
  const url =
    key === undefined ? undefined : (parseJson(event.inputText) as Record<string, unknown>)[key];
  const text =
    typeof url === "string" ? `${mapping.tool} ${url}` : `${event.host} ${event.toolName}`;
  return text.replace(/[\p{Cc}\p{Cf}]/gu, "?").slice(0, 200);
}

/**
 * A tool docket has no mapping for: before it runs, a refusal on the trail (the checkpoint knows
 * no such tool) and a deny that names it and says how to map it; other events pass.
 */
async function unmapped(runtime: Runtime, event: HookEvent, eventName: string): Promise<HookReply> {
  const adapter = hostAdapter(event.host);
  const reason = `docket: ${unmappedToolReason(event.host, event.toolName)}`;
  if (event.kind === "after") return adapter.reply(eventName, { type: "none" });
  if (event.kind === "permission") return adapter.reply(eventName, { type: "deny", reason });
  await ensureHookSession(runtime.store, event, runtime.configHash);
  const checkpoint = createCheckpoint({ tools: [], store: runtime.store, principal: event.host });
  await checkpoint.preflight(
    { id: event.callId, name: event.toolName, arguments: event.inputText },
    { sessionId: event.sessionId, principal: event.host },
  );
  return adapter.reply(eventName, { type: "deny", reason });
}

/**
 * A settle event's answer: silence, with a line on standard error when it could not record (a
 * config or a store that does not open included): it must never block the user's prompt.
 */
async function settle(options: RunHookOptions, event: SettleEvent): Promise<HookReply> {
  const quiet = hostAdapter(event.host).reply(event.eventName, { type: "none" });
  let runtime: Runtime | undefined;
  try {
    runtime = options.runtime ?? (await openHookRuntime(options));
    await settleAskedCalls(runtime.store, event);
    return quiet;
  } catch (error) {
    const why = maskSecrets(
      (error instanceof Error ? error.message : String(error)).split("\n", 1)[0] ?? "",
    );
    return {
      ...quiet,
      stderr: `docket: the calls ${event.host} never ran are not settled: ${why}\n`,
    };
  } finally {
    if (runtime && !options.runtime) await runtime.close().catch(() => undefined);
  }
}
