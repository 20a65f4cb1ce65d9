// Types only, plus nothing heavy: the hook guard loads the registry before anything else.
import type { HookReply, HookVerdict } from "./hook-answer.js";
import type { HostToolTable } from "./host-tool-mapping.js";
import type { ProbeProtocol } from "./probe/probe-server.js";

/**
 * What a hook does with a call the policy answers `ask`: `host` hands it to the host's own
 * permission prompt (recording what happened from the after event), `wait` waits for a docket
 * approval (any channel: terminal, `docket approvals`, HTTP) up to `waitMs` and then denies,
 * `deny` denies at once.
 */
export type AskMode = "host" | "wait" | "deny";

/**
 * What one of a host's hook events means to docket: `before` (may it run?), `after` (it ran),
 * `after-failure` (it ran and failed, told by the event itself), `permission` (the host is about
 * to prompt), `settle` (the calls handed to the host's prompt are over).
 */
export type HostEventKind = "before" | "after" | "after-failure" | "permission" | "settle";

/** Where a host keeps its hook settings, relative to the project or the home directory. */
export interface RegistrationTarget {
  /** Relative path of the file. */
  readonly file: string;
  /** Whether the file lives under the user's home (`~`) rather than the project. */
  readonly home: boolean;
}

/** How docket is written into and taken out of a host's settings. */
export interface HostRegistration {
  readonly target: RegistrationTarget;
  /**
   * Other files (relative, project or home) whose change would take docket out of the host's
   * loop: a local settings file that overrides the registration, for one.
   */
  readonly alsoGuarded: readonly string[];
  /** The settings text with docket registered for every tool; registering twice changes nothing. */
  install(text: string, command: string, timeoutSeconds: number, file: string): string;
  /** The settings text without docket's entries; `undefined`: the whole file is docket's, remove it. */
  uninstall(text: string, command: string, file: string): string | undefined;
}

/** Whether and how a host can put an `ask` to its own user. */
export interface HostAsking {
  /** The `hooks.ask` mode when docket.yaml names none. */
  readonly defaultMode: AskMode;
  /** Whether `ask: host` means anything here (false: the host would run an ask, or never prompts). */
  readonly hostPrompt: boolean;
  /**
   * Whether the host above the hook process runs headless, where its prompt can never answer;
   * undefined when it cannot tell. Only hosts whose prompt would then wait forever have one.
   * `hookParentPid` is the hook process's parent (default this process's: the daemon is given
   * its client's).
   */
  readonly headless?: (hookParentPid?: number) => boolean | undefined;
}

/**
 * How the host's shell commands are contained: `rewrite`, the hook's answer replaces the command
 * with docket's own sandboxed launch of it (`docket hook exec`, the profile `run_command` has);
 * `host-sandbox`, only the host's own sandbox can, and `how` says how it is set; `none`, nothing
 * contains them, and `why` says so. Each is stated per host in docs/hooks.md.
 */
export type HostContainment =
  | { readonly type: "rewrite" }
  | { readonly type: "host-sandbox"; readonly how: string }
  | { readonly type: "none"; readonly why: string };

/** How `docket hook test` starts the installed host headless against docket's probe model. */
export interface HostProbe {
  /** The host's command, looked up on PATH (`--binary` names another). */
  readonly binary: string;
  /** Its model protocol, loaded when a probe runs (the adapter stays light for the hook). */
  protocol(): Promise<ProbeProtocol>;
  /** The arguments of a headless run of one prompt, against the probe model at `url`. */
  args(prompt: string, url: string): string[];
  /** What to look at when the host ran but never asked docket. */
  readonly notAsked: string;
  /** The user's own environment, pointed at the probe model at `url` with a key it accepts. */
  env(url: string, base: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
}

/** The payload keys a host sends its hook the session and the tool call's ids in. */
export interface HostIdKeys {
  readonly session: string;
  /** Absent from a payload: docket derives an id from the tool and its input. */
  readonly call: string;
}

/**
 * One coding agent docket is the permission hook of: everything that differs from host to host,
 * in one object, so that adding a host is one module under `src/hook/hosts/`, one line in the
 * registry and its tests. Every part is required: the compiler asks for each.
 *
 * @example
 * ```ts
 * import { hostAdapter } from "./host-registry.js";
 * const claude = hostAdapter("claude-code");
 * claude.events.PreToolUse; // "before"
 * claude.reply("PreToolUse", { type: "deny", reason: "no" }).stdout; // '{"hookSpecificOutput":…}'
 * ```
 */
export interface HostAdapter<Name extends string = string> {
  readonly name: Name;
  /** The host as people call it, for messages: `Claude Code`. */
  readonly title: string;
  /** Its hook event names, each with what it means to docket; others are ignored. */
  readonly events: Readonly<Record<string, HostEventKind>>;
  readonly ids: HostIdKeys;
  /** Every tool the pinned host version offers, mapped; a tool not here is denied by name. */
  readonly tools: HostToolTable;
  /** Its name for an MCP tool, split into server and tool; undefined when it is not one. */
  mcpToolName(name: string): { readonly server: string; readonly tool: string } | undefined;
  /** A verdict in the host's words, for the event it answers. */
  reply(eventName: string, verdict: HookVerdict): HookReply;
  readonly registration: HostRegistration;
  readonly asking: HostAsking;
  /**
   * The host's tool that types into a process an earlier call left running, when it has one
   * (Codex's `write_stdin`): no hook sees what it types, so a command that would leave such a
   * process (a shell, a REPL, a pager) is denied unless a rule allows that tool.
   */
  readonly keystrokesTool: string | undefined;
  /** Whether its shell commands run in docket's sandbox, its own, or none. */
  readonly containment: HostContainment;
  /** How `docket hook test` runs it; undefined where that is not built yet. */
  readonly probe: HostProbe | undefined;
}
