import { createInterface } from "node:readline/promises";
import type { Command } from "commander";
import { containedCall } from "../../hook/contained-call.js";
import { runContained } from "../../hook/contained-exec.js";
import { daemonIdentity } from "../../hook/daemon-identity.js";
import { daemonLifetime } from "../../hook/daemon-lifetime.js";
import { hookSocketPath } from "../../hook/hook-socket.js";
import { runHookTest } from "../../hook/hook-test.js";
import { HOST_NAMES, isHostName } from "../../hook/host-registry.js";
import { applyRegistration, planRegistration } from "../../hook/install-hook.js";
import { openHookRuntime } from "../../hook/open-hook-runtime.js";
import { selfCommand } from "../../hook/self-command.js";
import { serveHooks } from "../../hook/serve-hooks.js";
import { commandFailure } from "./command-failure.js";

async function confirmed(question: string): Promise<boolean> {
  if (!process.stdin.isTTY || !process.stdout.isTTY) return false;
  const prompt = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return /^y(es)?$/i.test((await prompt.question(question)).trim());
  } finally {
    prompt.close();
  }
}

interface RegisterFlags {
  readonly yes?: boolean;
  readonly daemon?: boolean;
  readonly command?: string;
  readonly project?: string;
}

/**
 * The daemon flag a registration carries: by default `--prefer-daemon` (the daemon when it runs,
 * this process when it does not); `--daemon` registers the strict client, `--no-daemon` none.
 */
function daemonFlag(daemon: boolean | undefined): string[] {
  if (daemon === undefined) return ["--prefer-daemon"];
  return daemon ? ["--daemon"] : [];
}

async function register(action: "install" | "uninstall", host: string, flags: RegisterFlags) {
  if (!isHostName(host)) {
    commandFailure(
      2,
      "docket.hook.host",
      `docket hooks into ${HOST_NAMES.join(", ")}, not ${JSON.stringify(host)}.`,
    );
  }
  const change = await planRegistration(action, {
    host,
    command: flags.command ?? selfCommand(["hook", host, ...daemonFlag(flags.daemon)]),
    alsoRemove:
      flags.command === undefined
        ? [undefined, true, false]
            .filter((daemon) => daemon !== flags.daemon)
            .map((daemon) => selfCommand(["hook", host, ...daemonFlag(daemon)]))
        : [],
    project: flags.project ?? process.cwd(),
  });
  if (change.diff.length === 0 && change.after !== undefined) {
    process.stdout.write(`${change.file}: nothing to change.\n`);
    return;
  }
  process.stdout.write(
    `--- ${change.file}\n+++ ${change.file}${change.after === undefined ? " (removed)" : ""}\n`,
  );
  process.stdout.write(`${change.diff.join("\n")}\n`);
  if (
    !flags.yes &&
    !(await confirmed(`${action === "install" ? "Write" : "Remove"} this? [y/N] `))
  ) {
    commandFailure(
      1,
      "docket.hook.unconfirmed",
      "Nothing was written (confirm at the prompt, or pass --yes).",
    );
  }
  await applyRegistration(change);
  process.stdout.write(
    `${action === "install" ? "Registered docket in" : "Removed docket from"} ${change.file}.\n`,
  );
}

/**
 * `docket hook exec -- COMMAND`: what a host runs when the hook contained its command. The
 * sandbox is the runtime's own (the one `run_command` gets, the hosts' registrations among the
 * hidden files), built from the config and store the hook named.
 */
async function exec(
  command: string,
  flags: { config?: string; store?: string; session?: string; call?: string },
) {
  const runtime = await openHookRuntime(flags);
  const { sandbox, workspace } = runtime;
  // Tied to the hooked call, the store stays open for the asks and the trail (ADR 0069).
  const bound = await containedCall(runtime, { sessionId: flags.session, callId: flags.call });
  if (bound.status === "unbound") await runtime.close();
  const exit = await runContained({
    command,
    sandbox,
    workspace,
    ...(bound.status === "bound" ? { network: bound.network } : {}),
  }).finally(() => (bound.status === "bound" ? runtime.close() : undefined));
  if (exit.status === "refused") {
    commandFailure(126, "docket.hook.exec", `docket: the command did not run: ${exit.reason}`);
  }
  process.exitCode = exit.exitCode;
}

interface TestFlags {
  readonly config?: string;
  readonly store?: string;
  readonly project?: string;
  readonly binary?: string;
  readonly deny?: string;
  readonly allow?: string;
  readonly timeout?: string;
}

/** `docket hook test HOST`: the report, one line a check; exit 0 only when every check held. */
async function test(host: string, flags: TestFlags) {
  if (!isHostName(host)) {
    commandFailure(
      2,
      "docket.hook.host",
      `docket hooks into ${HOST_NAMES.join(", ")}, not ${JSON.stringify(host)}.`,
    );
  }
  const timeoutMs = flags.timeout === undefined ? undefined : Number(flags.timeout) * 1000;
  if (timeoutMs !== undefined && !(timeoutMs > 0)) {
    commandFailure(2, "docket.hook.test", "--timeout takes a number of seconds above 0.");
  }
  const report = await runHookTest({
    host,
    config: flags.config,
    store: flags.store,
    binary: flags.binary,
    deny: flags.deny,
    allow: flags.allow,
    ...(flags.project ? { project: flags.project } : {}),
    ...(timeoutMs ? { timeoutMs } : {}),
  });
  if (report.status === "not_run") {
    commandFailure(2, "docket.hook.test", `docket: the hook test did not run: ${report.reason}.`);
  }
  for (const { ok, label, detail } of report.checks) {
    process.stdout.write(`${ok ? "ok  " : "FAIL"} ${label}\n     ${detail}\n`);
  }
  if (report.status === "failed") {
    commandFailure(1, "docket.hook.test", `docket: ${host} is not governed as it should be here.`);
  }
  process.stdout.write(
    `docket governs ${host} here: the deny held, the allow ran, both are on the trail.\n`,
  );
}

async function serve(flags: {
  config?: string;
  store?: string;
  socket?: string;
  exitWhenIdle?: string;
}) {
  const idleSeconds = flags.exitWhenIdle === undefined ? undefined : Number(flags.exitWhenIdle);
  if (idleSeconds !== undefined && !(Number.isFinite(idleSeconds) && idleSeconds > 0)) {
    commandFailure(2, "docket.hook.idle", "docket: --exit-when-idle takes a number of seconds.");
  }
  const runtime = await openHookRuntime(flags);
  // After the runtime: a config that does not load stops docket there, with its file and line.
  const identity = daemonIdentity({
    cwd: process.cwd(),
    env: process.env,
    config: flags.config,
    store: flags.store,
  });
  const socket = hookSocketPath(identity, flags.socket);
  // A daemon outlives edits: a changed docket.yaml takes effect without a restart, its policy and
  // every other section the hook path reads (`latestCli`, ADR 0104).
  runtime.watchPolicy();
  const server = await serveHooks(runtime, socket, identity);
  process.stderr.write(
    `docket: answering hook calls on ${socket} (process ${process.pid}; stop with Ctrl-C)\n`,
  );
  const why = await new Promise<string>((resolve) => {
    process.once("SIGINT", () => resolve("stopped"));
    process.once("SIGTERM", () => resolve("stopped"));
    // A started-on-first-use daemon must not outlive its project, nor linger idle for ever.
    daemonLifetime(server, socket, {
      idleMs: idleSeconds === undefined ? undefined : idleSeconds * 1000,
    }).then(resolve);
  });
  if (why !== "stopped") process.stderr.write(`docket: the hook daemon ends: ${why}\n`);
  await new Promise((resolve) => server.close(resolve));
  await runtime.close();
}

/**
 * `docket hook HOST` (answered before this parser runs, see src/cli/main.ts), `docket hook install
 * HOST` and `docket hook uninstall HOST`.
 *
 * @example
 * ```ts
 * import { Command } from "commander";
 * const program = new Command("docket");
 * registerHookCommand(program);
 * await program.parseAsync(["hook", "install", "claude-code", "--yes"], { from: "user" });
 * ```
 */
export function registerHookCommand(program: Command): void {
  const hook = program
    .command("hook")
    .description(`docket as the permission hook of ${HOST_NAMES.join(", ")} (docs/hooks.md).`);
  for (const host of HOST_NAMES) {
    hook
      .command(host)
      .description(`Answer one ${host} hook call: the payload on stdin (the host runs this).`)
      .option("--config <file>", "docket.yaml to use")
      .option("--store <url>", "the store to use")
      .option("--daemon", "ask docket hook serve; deny when it is not running")
      .option("--prefer-daemon", "ask docket hook serve, starting it when none runs")
      .option(
        "--socket <path>",
        "the daemon's socket (default .docket/hook-KEY.sock beside docket.yaml)",
      )
      .action(() =>
        // Only reached when main.ts did not take the call; never answer allow from here.
        commandFailure(
          2,
          "docket.hook.unguarded",
          "docket: the hook ran unguarded; the call is denied.",
        ),
      );
  }
  hook
    .command("exec")
    .description(
      "Run a host's shell command in docket's sandbox (what a hook that contains commands writes).",
    )
    .argument("<command>", "the shell command line, one argument")
    .option("--config <file>", "docket.yaml to use")
    .option("--store <url>", "the store to use")
    .option("--session <id>", "the hooked call's session: its network asks are that call's")
    .option("--call <id>", "the hooked call's id")
    .action(exec);
  hook
    .command("test <host>")
    .description(
      "Prove docket governs the installed host here: run it headless against a local probe model that asks for a denied and an allowed command.",
    )
    .option("--config <file>", "docket.yaml to use")
    .option("--store <url>", "the store to use")
    .option("--project <dir>", "the project the host runs in (default: the current one)")
    .option("--binary <path>", "the host's command (default: its usual name on PATH)")
    .option("--deny <command>", "a command your policy denies (default: a write into .docket/)")
    .option("--allow <command>", "a command your policy allows (default: ls -a)")
    .option("--timeout <seconds>", "how long the host may take (default 180)")
    .action(test);
  hook
    .command("serve")
    .description(
      "Answer hook calls on a Unix socket (0600, .docket/hook-KEY.sock) with docket kept loaded.",
    )
    .option("--config <file>", "docket.yaml to use")
    .option("--store <url>", "the store to use")
    .option("--socket <path>", "where to listen (default .docket/hook-KEY.sock beside docket.yaml)")
    .option("--exit-when-idle <seconds>", "end after this long without a hook call")
    .action(serve);
  for (const action of ["install", "uninstall"] as const) {
    hook
      .command(`${action} <host>`)
      .description(
        action === "install"
          ? "Register docket in the host's settings (shows the diff first)."
          : "Remove exactly docket's registration from the host's settings.",
      )
      .option("--yes", "write without asking")
      .option(
        "--daemon",
        "register the strict client of docket hook serve (denies when it is not running)",
      )
      .option(
        "--no-daemon",
        "register the in-process hook only (default: the daemon, started on first use)",
      )
      .option("--command <command>", "the command the host runs (default: this docket)")
      .option("--project <dir>", "the project directory (default: the current one)")
      .action((host: string, flags: RegisterFlags) => register(action, host, flags));
  }
}
