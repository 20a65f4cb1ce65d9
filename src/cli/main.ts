#!/usr/bin/env node
import { readPolicyCheckArgv } from "./commands/policy-check-argv.js";

const argv = process.argv.slice(2);
// `policy check TOOL ARGS [--json]`, as scripts and hooks send it: no commander, and in the built
// CLI a bundle of its own (policy-check-main.ts) that sets its own V8 flag. Nothing else is
// imported first: each module file the launcher loads is a cost of every cold check
// (docs/adr/0022-code-cache.md).
const check = readPolicyCheckArgv(argv);
if (check !== undefined) {
  try {
    const { runPolicyCheck } = await import("./policy-check-main.js");
    process.exitCode = await runPolicyCheck(check, argv);
  } catch (error) {
    // Only its modules failing to load gets here: one line, never a stack trace.
    const { reportError } = await import("./report-error.js");
    process.exitCode = reportError(error, argv);
  }
} else if (argv[0] === "hook" && (argv.includes("--daemon") || argv.includes("--prefer-daemon"))) {
  // The daemon's thin client, before anything else loads: a hook the daemon answers costs about
  // one Node start-up (src/hook/hook-client-main.ts). The built CLI's launcher answers such a
  // call itself, with the client bundled in it, before this module (src/cli/launcher.ts); this
  // branch is the sources'. `hook install … --daemon` is not one.
  const client = await import("../hook/hook-client-main.js").catch(() => undefined);
  if (client === undefined) {
    // A hook answers deny even when its own modules fail to load.
    process.stderr.write("docket: the hook failed; the call is denied.\n");
    process.exit(2);
  } else if (client.isDaemonClientCall(argv)) await client.answerAsDaemonClient(argv);
  else await runEverythingElse();
} else await runEverythingElse();

async function runEverythingElse(): Promise<void> {
  // The CLI owns its process: Node 22's warning that node:sqlite is experimental (the store
  // runs on it, and so does the demo's orders database) is not the operator's business.
  const { quietSqliteWarning } = await import("../shared/quiet-sqlite-warning.js");
  quietSqliteWarning();
  // No V8 flag is set here. Any flag V8 was not built with makes Node compile each of its own
  // modules loaded afterwards from source, its embedded code cache rejected: about 30 ms of a
  // cold run, and 50 ms more when the run's model first calls fetch. The command's bundle sets
  // WebAssembly's Liftoff flags just before tree-sitter's first compile, as it needs them
  // (cli-bundle.ts, docs/adr/0093-no-v8-flag-at-start.md).
  await runCommand();
}

async function runCommand(): Promise<void> {
  if (argv[0] === "hook" && (await runHook())) return;
  // `docket --version` answers from the package's manifest: no command's code to load.
  if (argv.length === 1 && (argv[0] === "-v" || argv[0] === "--version")) {
    const { packageRoot } = await import("./package-root.js");
    process.stdout.write(`${packageRoot().version}\n`);
    return;
  }
  // Every other command: in the built CLI, the CLI's one script through V8's code cache
  // (cli-loader.ts), which ends an escaped error with its own one line. Only its failing to
  // load gets here.
  try {
    const { runCommandLine } = await import("./cli-bundle.js");
    process.exitCode = await runCommandLine(argv);
  } catch (error) {
    const { reportError } = await import("./report-error.js");
    process.exitCode = reportError(error, argv);
  }
}

/** A hook call (`docket hook HOST`), answered in this process; false for any other `hook …`. */
async function runHook(): Promise<boolean> {
  const hook = await import("../hook/hook-guard.js").catch(() => {
    // A hook answers deny even when its own modules fail to load.
    process.stderr.write("docket: the hook failed; the call is denied.\n");
    process.exit(2);
  });
  if (!hook.isHookInvocation(argv)) return false;
  // A hook answers deny on anything that goes wrong, its own modules failing to load included,
  // and loads only what a hook needs (docs/hooks.md).
  const deny = () => {
    process.stderr.write("docket: the hook failed; the call is denied.\n");
    process.exit(2);
  };
  process.on("uncaughtException", deny);
  process.on("unhandledRejection", deny);
  // docket's whole hook path, on first use: in the built CLI from the CLI's code-cached script
  // (cli-loader.ts). A call registered with `--daemon` or `--prefer-daemon` never gets here:
  // the launcher hands it to the thin client first (hook-client-main.ts).
  const load = async () => (await import("./cli-bundle.js")).hookRunner;
  const code = await hook.guardHook(argv, load, hook.nodeHookIo(), hook.firstDeadline());
  // Out at once: a store or timer left open must not keep the host waiting.
  process.stdout.write("", () => process.exit(code));
  return true;
}
