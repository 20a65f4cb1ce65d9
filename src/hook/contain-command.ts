import type { Runtime } from "../cli/build-runtime.js";
import { probeSandboxSoon } from "../sandbox/probe-sandbox.js";
import { resolveConfinement } from "../sandbox/resolve-confinement.js";
import { SANDBOX_DEFAULTS } from "../sandbox/sandbox-settings.js";
import { parseJson } from "../shared/parse-json.js";
import type { ToolConfinement } from "../tool/tool.js";
import type { HookVerdict } from "./hook-answer.js";
import type { HostAdapter } from "./host-adapter.js";
import type { HostToolMapping } from "./host-tool-mapping.js";
import { selfCommand } from "./self-command.js";
import { readShellLine, shellWord } from "./shell-word.js";

/**
 * The confinement a host's shell tool is judged with: on a host whose commands docket rewrites
 * into its sandbox, the sandbox's state here, so that (as for `run_command`) a rule alone never
 * allows a command that would run unconfined, and `sandbox.mode: required` without a sandbox
 * denies. Other tools, and hosts docket cannot contain, have none. The bubblewrap probe runs in
 * the background (a hook call starts it before its store reads, and awaits it after).
 *
 * @example
 * ```ts
 * import type { Runtime } from "../cli/build-runtime.js";
 * import { shellTool } from "./host-tool-mapping.js";
 * import { claudeCodeHost } from "./hosts/claude-code.js";
 * declare const runtime: Runtime;
 * const confining = hostConfinement(claudeCodeHost, shellTool(), runtime); // its Bash tool
 * // … read the session's taint …
 * await confining; // { status: "sandboxed" }
 * ```
 */
export async function hostConfinement(
  adapter: HostAdapter,
  mapping: HostToolMapping,
  runtime: Pick<Runtime, "sandbox">,
): Promise<ToolConfinement | undefined> {
  if (adapter.containment.type !== "rewrite" || mapping.policyArgs.command === undefined) {
    return undefined;
  }
  const { sandbox } = runtime;
  if ((sandbox.mode ?? SANDBOX_DEFAULTS.mode) !== "off") {
    await probeSandboxSoon(sandbox.bwrapPath ?? SANDBOX_DEFAULTS.bwrapPath, { version: false });
  }
  return resolveConfinement(sandbox);
}

/** Where the contained command finds docket's config and store, as the hook found them. */
export interface ContainTarget {
  readonly configFile: string | undefined;
  readonly storeUrl: string;
  /**
   * The hooked call the command runs for: its sandbox network's asks become approval requests
   * of that call, in that session (ADR 0069).
   */
  readonly call?: { readonly sessionId: string; readonly callId: string };
}

/**
 * A cleared shell call's answer with the host's input rewritten so that the host runs
 * `docket hook exec -- 'COMMAND'` (docket's sandbox, `run_command`'s profile) instead of the
 * command itself. Only an allow or an ask of a host that rewrites, for a tool with a command key,
 * with the sandbox available; any other answer is returned as it was. The audit trail keeps the
 * input the model sent, which is what was judged.
 *
 * @example
 * ```ts
 * import type { ToolConfinement } from "../tool/tool.js";
 * import { shellTool } from "./host-tool-mapping.js";
 * declare const confinement: ToolConfinement; // { status: "sandboxed" }
 * const target: ContainTarget = { configFile: undefined, storeUrl: "postgres://db/docket" };
 * containVerdict({ type: "allow", reason: "ok" }, { mapping: shellTool(), inputText: '{"command":"ls"}', confinement, target });
 * // { type: "allow", reason: "ok", updatedInput: { command: "/usr/bin/node …/main.js hook exec -- 'ls'" } }
 * ```
 */
export function containVerdict(
  verdict: HookVerdict,
  {
    mapping,
    inputText,
    confinement,
    target,
  }: {
    readonly mapping: HostToolMapping;
    readonly inputText: string;
    readonly confinement: ToolConfinement | undefined;
    readonly target: ContainTarget;
  },
): HookVerdict {
  const key = mapping.policyArgs.command;
  if (verdict.type !== "allow" && verdict.type !== "ask") return verdict;
  if (key === undefined || confinement?.status !== "sandboxed") return verdict;
  const input = parseJson(inputText) as Record<string, unknown>;
  const command = input[key];
  if (typeof command !== "string") return verdict;
  return { ...verdict, updatedInput: { ...input, [key]: containedCommand(command, target) } };
}

/**
 * The command line that runs `command` in docket's sandbox: this docket's `hook exec`, its config
 * and (a SQLite file only: a database URL may hold a password, and the line reaches the model)
 * its store, the hooked call's session and id, then the command as one quoted word.
 *
 * @example
 * ```ts
 * containedCommand("rm -rf build", { configFile: "/ws/docket.yaml", storeUrl: "sqlite:/ws/.docket/docket.db" });
 * // "/usr/bin/node …/main.js hook exec --config /ws/docket.yaml --store sqlite:/ws/.docket/docket.db -- 'rm -rf build'"
 * ```
 */
export function containedCommand(command: string, target: ContainTarget): string {
  const flags = [
    ...(target.configFile === undefined ? [] : ["--config", target.configFile]),
    ...(target.storeUrl.startsWith("sqlite:") ? ["--store", target.storeUrl] : []),
    ...(target.call ? ["--session", target.call.sessionId, "--call", target.call.callId] : []),
  ];
  return `${selfCommand(["hook", "exec", ...flags, "--"])} ${shellWord(command)}`;
}

/**
 * The command a contained line runs (`… hook exec [flags] -- 'COMMAND'`, as `containedCommand`
 * wrote it), or undefined for any other line. Only the outermost wrapping is taken off.
 *
 * @example
 * ```ts
 * containedOriginal("/usr/bin/node /x/main.js hook exec --config /ws/docket.yaml -- 'ls -a'"); // "ls -a"
 * containedOriginal("ls -a"); // undefined
 * ```
 */
export function containedOriginal(line: string): string | undefined {
  const words = readShellLine(line);
  if (words === undefined) return undefined;
  const exec = words.findIndex((word, at) => word === "hook" && words[at + 1] === "exec");
  const end = words.indexOf("--", exec + 2);
  return exec > 0 && end === words.length - 2 ? words[end + 1] : undefined;
}

/**
 * A host's after-event input as the model sent it: where the host reports the input docket's
 * answer rewrote (gemini-cli's `AfterTool` carries the contained line), the command put back, so
 * the call pairs with the one its before event cleared and the trail keeps what was judged.
 * Any other input is returned as it was.
 *
 * @example
 * ```ts
 * import { shellTool } from "./host-tool-mapping.js";
 * uncontainedInput('{"command":"node /x/main.js hook exec -- \'ls -a\'"}', shellTool()); // '{"command":"ls -a"}'
 * ```
 */
export function uncontainedInput(inputText: string, mapping: HostToolMapping): string {
  const key = mapping.policyArgs.command;
  if (key === undefined) return inputText;
  const input = parseJson(inputText) as Record<string, unknown>;
  const line = input[key];
  const original = typeof line === "string" ? containedOriginal(line) : undefined;
  return original === undefined ? inputText : JSON.stringify({ ...input, [key]: original });
}
