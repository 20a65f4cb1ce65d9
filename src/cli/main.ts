#!/usr/bin/env node
// First: no tool may be defined before the development lint warnings are turned off.
import "./quiet-tool-lint.js";
import { reportError, runCli } from "./run-cli.js";

const argv = process.argv.slice(2);
// Whatever escapes a command (an error event nobody handled, a rejected promise nobody awaited)
// ends docket with one line and a log, never a stack trace.
const crash = (error: unknown) => {
  process.exitCode = reportError(error, argv);
  process.exit();
};
process.on("uncaughtException", crash);
process.on("unhandledRejection", crash);

process.exitCode = await runCli(argv);
