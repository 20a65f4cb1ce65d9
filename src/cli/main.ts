#!/usr/bin/env node
import {
  firstDeadline,
  guardHook,
  isHookInvocation,
  loadHookRunner,
  nodeHookIo,
} from "../hook/hook-guard.js";

const argv = process.argv.slice(2);
if (isHookInvocation(argv)) {
  // A hook answers deny on anything that goes wrong, its own modules failing to load included,
  // and loads only what a hook needs (docs/hooks.md).
  const deny = () => {
    process.stderr.write("docket: the hook failed; the call is denied.\n");
    process.exit(2);
  };
  process.on("uncaughtException", deny);
  process.on("unhandledRejection", deny);
  const code = await guardHook(argv, loadHookRunner(argv), nodeHookIo(), firstDeadline());
  // Out at once: a store or timer left open must not keep the host waiting.
  process.stdout.write("", () => process.exit(code));
} else {
  // First: no tool may be defined before the development lint warnings are turned off.
  await import("./quiet-tool-lint.js");
  const { reportError, runCli } = await import("./run-cli.js");
  // Whatever escapes a command (an error event nobody handled, a rejected promise nobody awaited)
  // ends docket with one line and a log, never a stack trace.
  const crash = (error: unknown) => {
    process.exitCode = reportError(error, argv);
    process.exit();
  };
  process.on("uncaughtException", crash);
  process.on("unhandledRejection", crash);

  process.exitCode = await runCli(argv);
}
