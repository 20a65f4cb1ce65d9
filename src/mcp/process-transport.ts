import { type ChildProcess, spawn } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import {
  moveAsidePlanted,
  type PlantNote,
  type PlantWatch,
} from "../sandbox/move-aside-planted.js";
import type { NetworkApprover, NetworkConnection } from "../sandbox/network/network-connection.js";
import {
  openSandboxNetwork,
  type SandboxNetwork,
} from "../sandbox/network/open-sandbox-network.js";
import { resolveConfinement } from "../sandbox/resolve-confinement.js";
import { planSandboxLaunch } from "../sandbox/sandbox-launch.js";
import { type GitWatch, sweepGit } from "../sandbox/sweep-git.js";
import { JsonRpcLineBuffer } from "./json-rpc-line-buffer.js";
import type { ServerSandbox } from "./mcp-config.js";
import { withParentWatchdog } from "./parent-watchdog.js";
import { signalProcessGroup, stopProcessGroup } from "./stop-process-group.js";

/** How to start a stdio MCP server. */
export interface ProcessTransportOptions {
  readonly command: string;
  readonly args?: readonly string[];
  /** Added to a minimal inherited environment (HOME, PATH, …): secrets are not passed on. */
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string | undefined;
  /** Each line the server writes to stderr. */
  readonly onStderr?: (line: string) => void;
  /**
   * What docket itself has to say about the server: a file of docket's it created, moved aside
   * (`moved`) or not. For the operator's log at warn or error level, never for the model.
   */
  readonly onNotice?: (notice: PlantNote) => void;
  /** How long the group gets after SIGTERM before SIGKILL. Default 2 s. */
  readonly graceMs?: number;
  /** Run the server in the bubblewrap sandbox; it then fails to start where none is available. */
  readonly sandbox?: ServerSandbox | undefined;
  /**
   * Each connection the sandboxed server made through docket's proxy (a `sandbox.network` with
   * host lists).
   */
  readonly onNetworkConnection?: (connection: NetworkConnection) => void;
  /**
   * Answers the asks of `sandbox.network`'s rules; it must name the call each ask belongs to
   * (`CallsInFlight.approver`). Without one an ask is refused.
   */
  readonly networkApprover?: NetworkApprover | undefined;
}

/** How a server process ended. */
export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** How a server is started: the file and arguments to spawn, its environment. */
interface Launch {
  readonly file: string;
  readonly args: string[];
  readonly env: Record<string, string>;
  readonly cleanup?: () => void;
  /** Wrapped in the parent watchdog, which wants its pipe on fd 3. */
  readonly watched?: boolean;
  /** docket's config files missing when the sandbox started: it cannot cover them. */
  readonly watchConfig?: readonly PlantWatch[];
  /** The workspace's repositories at the sandbox's start, swept when the server ends. */
  readonly gitWatch?: GitWatch;
}

/** Groups still running, killed on the way out if docket exits without closing them. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const group of liveGroups) signalProcessGroup(group, "SIGKILL");
  });
}

/**
 * An MCP client transport over a child process's stdin/stdout, like the SDK's
 * `StdioClientTransport`, except that the server runs in a process group of its own
 * (`detached`), so that closing it stops everything it started: wrappers such as `npx` or
 * `sh -c` otherwise leave the real server behind as an orphan.
 *
 * @example
 * ```ts
 * declare const client: import("@modelcontextprotocol/sdk/client/index.js").Client;
 * const transport = new ProcessTransport({ command: "mcp-server-everything", args: ["stdio"] });
 * await client.connect(transport);
 * transport.pid; // the group id
 * await client.close(); // SIGTERM to the group, SIGKILL after the grace period
 * ```
 */
export class ProcessTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: JSONRPCMessage) => void) | undefined;

  readonly #options: ProcessTransportOptions;
  readonly #buffer = new JsonRpcLineBuffer();
  #child: ChildProcess | undefined;
  #exit: ProcessExit | undefined;
  #stopping: Promise<void> | undefined;
  #watch: readonly PlantWatch[] = [];
  #network: SandboxNetwork | undefined;
  #gitWatch: GitWatch | undefined;

  constructor(options: ProcessTransportOptions) {
    this.#options = options;
  }

  /** The server's pid, which is also its process group id; undefined before start. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** How the process ended, once it has. */
  get exit(): ProcessExit | undefined {
    return this.#exit;
  }

  start(): Promise<void> {
    if (this.#child) throw new Error("ProcessTransport already started");
    const { cwd } = this.#options;
    let launch: Launch;
    try {
      launch = this.#plan();
    } catch (error) {
      return Promise.reject(error);
    }
    installExitHook();
    this.#watch = launch.watchConfig ?? [];
    this.#gitWatch = launch.gitWatch;
    return new Promise((resolve, reject) => {
      const child = spawn(launch.file, launch.args, {
        env: launch.env,
        cwd,
        // fd 3: the watchdog's pipe, held open by docket until it exits (however it exits).
        // or the channel a filtered network's bootstrap hands docket its listener on.
        stdio: [
          "pipe",
          "pipe",
          "pipe",
          launch.watched ? "pipe" : this.#network?.proxy ? "ipc" : "ignore",
        ],
        detached: true,
      });
      this.#network?.attach(child);
      if (launch.cleanup) child.once("close", launch.cleanup);
      this.#child = child;
      child.once("error", (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.once("spawn", () => {
        if (child.pid !== undefined) liveGroups.add(child.pid);
        resolve();
      });
      // When the leader dies on its own, whatever it started goes too: no orphans, and the
      // pipes it shared get closed, so that "close" fires.
      child.once("exit", () => void this.close());
      child.once("close", (code, signal) => {
        this.#exit = { code, signal };
        // The sandbox has ended with every process in it: nothing can swap a folder now.
        this.#sweep(false);
        void this.#network?.close();
        this.onclose?.();
      });
      child.stdout?.on("data", (chunk: Buffer) => this.#receive(chunk));
      // A server that dies mid-write makes these streams fail; the close event reports it.
      child.stdin?.on("error", (error) => this.onerror?.(error));
      child.stdout?.on("error", (error) => this.onerror?.(error));
      this.#forwardStderr(child);
    });
  }

  // Unconfined: the command with a minimal environment. Sandboxed: bwrap around it, with only
  // the allow-listed variables and the server's own `env`; no sandbox here means no start.
  #plan(): Launch {
    const { command, args = [], env = {}, cwd, sandbox } = this.#options;
    if (sandbox === undefined) {
      // Unconfined, nothing else ends the server with docket: a watchdog does (fd 3).
      const watched = withParentWatchdog(command, args);
      return { ...watched, env: { ...getDefaultEnvironment(), ...env }, watched: true };
    }
    const settings = { ...sandbox.settings, network: sandbox.network };
    const confinement = resolveConfinement({ ...settings, mode: "required" });
    if (confinement.status !== "sandboxed") {
      throw new Error(
        `it asks for a sandbox, but ${confinement.status === "refused" ? confinement.reason.replace(/^sandbox\.mode is required, but /, "") : "none is available"}`,
      );
    }
    const workspace = sandbox.workspace ?? cwd ?? process.cwd();
    const onConnection = this.#options.onNetworkConnection ?? (() => {});
    this.#network = openSandboxNetwork(settings, {
      onConnection,
      approve: this.#options.networkApprover,
    });
    const plan = planSandboxLaunch({
      workspace,
      cwd: cwd ?? workspace,
      argv: [command, ...args],
      settings,
      setEnv: env,
      networkProxy: this.#network.proxy,
    });
    if (plan.status === "refused") throw new Error(plan.reason);
    return plan;
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (!stdin || this.#exit || !stdin.writable) {
      return Promise.reject(new Error("the MCP server process is not running"));
    }
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once("drain", resolve);
    });
  }

  /** Stop the server and everything it started. Safe to call more than once. */
  close(): Promise<void> {
    this.#stopping ??= this.#stop();
    return this.#stopping;
  }

  async #stop(): Promise<void> {
    const child = this.#child;
    if (child?.pid === undefined) return;
    const closed = new Promise<void>((resolve) => {
      if (this.#exit) resolve();
      else child.once("close", () => resolve());
    });
    const graceMs = this.#options.graceMs ?? 2_000;
    child.stdin?.end();
    // The leader may already be gone while a grandchild it started lives on: stop the group.
    await stopProcessGroup(child.pid, { graceMs });
    liveGroups.delete(child.pid);
    // A process that left the group (setsid) may still hold the pipes: do not wait for it forever.
    await Promise.race([closed, sleep(graceMs, undefined, { ref: false })]);
    child.stdout?.destroy();
    child.stderr?.destroy();
    await this.#network?.close();
    this.#buffer.clear();
  }

  #receive(chunk: Buffer): void {
    const readable = this.#buffer.receive(
      chunk,
      (message) => {
        // After each answer, before docket acts on it: the server may have made one meanwhile.
        if (this.#watch.length > 0 && "id" in message) this.#sweep();
        this.onmessage?.(message);
      },
      (error) => this.onerror?.(error),
    );
    // Over the buffer cap: the stream cannot be resynchronised, so the server is stopped.
    if (!readable) void this.close();
  }

  // A sandboxed server may create docket's config files that were missing at its start
  // (docket.yaml), which the sandbox could not cover: after each answer it gives, and when it
  // ends, they are moved aside, and the operator's log says so.
  #sweep(live = true): void {
    // The repositories only once it has ended: a running server could plant again right after.
    const git =
      live || this.#gitWatch === undefined
        ? []
        : sweepGit(this.#gitWatch, { by: "the MCP server" });
    for (const notice of [
      ...moveAsidePlanted(this.#watch, { by: "the MCP server", live }),
      ...git,
    ]) {
      try {
        this.#options.onNotice?.(notice);
      } catch {
        // A failing log is not the server's answer's problem.
      }
    }
  }

  #forwardStderr(child: ChildProcess): void {
    const onStderr = this.#options.onStderr;
    let partial = "";
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (text: string) => {
      if (!onStderr) return;
      const lines = (partial + text).split("\n");
      partial = (lines.pop() ?? "").slice(-4096);
      for (const line of lines) if (line.trim() !== "") onStderr(line.slice(0, 4096));
    });
    child.stderr?.on("end", () => {
      if (onStderr && partial.trim() !== "") onStderr(partial);
    });
  }
}
