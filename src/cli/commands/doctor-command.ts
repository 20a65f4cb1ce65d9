import type { Command } from "commander";
import { loadPolicyFiles } from "../../config/load-policy-files.js";
import { sandboxReport } from "../../sandbox/sandbox-report.js";
import { SANDBOX_DEFAULTS } from "../../sandbox/sandbox-settings.js";
import { loadCliConfig } from "../load-cli-config.js";
import { persistedSandboxProbes } from "../persisted-sandbox-probe.js";
import { runtimeSandbox } from "../runtime-sandbox.js";
import { commandFailure } from "./command-failure.js";
import { CONFIG_FLAG_HELP, STORE_FLAG_HELP } from "./command-flags.js";

interface DoctorOptions {
  config?: string;
  store?: string;
  json?: boolean;
}

async function doctor(options: DoctorOptions): Promise<void> {
  const cli = loadCliConfig({ config: options.config, store: options.store });
  const layers = loadPolicyFiles({ projectFile: cli.projectFile ?? false });
  const settings = runtimeSandbox({
    storeUrl: cli.storeUrl,
    configFile: cli.projectFile,
    layers,
    sandbox: cli.runtime.sandbox,
  });
  // Keyed before the probe starts; the fresh answer replaces a kept one, so after `docket
  // doctor` cold commands go by what it saw (and probe afresh when it saw no sandbox).
  const slot = persistedSandboxProbes()?.open(settings.bwrapPath ?? SANDBOX_DEFAULTS.bwrapPath);
  const report = sandboxReport(settings);
  slot?.keep(report.probe);
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ sandbox: report })}\n`);
  } else {
    const bwrap =
      report.probe.status === "available"
        ? `${report.probe.bwrapPath}: ${report.probe.version}, namespaces work`
        : `${report.probe.bwrapPath}: ${report.probe.reason}`;
    process.stdout.write(
      [
        `sandbox.mode      ${report.mode}`,
        `bubblewrap        ${bwrap}`,
        `network           ${report.network}`,
        `limits            ${report.limits.processes} processes (${report.processLimit}), ${report.limits.memoryMb} MiB per process`,
        `hidden            ${report.hide.length} paths, ${report.hidePatterns.length} deny globs`,
        "",
        report.meaning,
        "",
      ].join("\n"),
    );
  }
  if (!report.ok) commandFailure(1, "docket.doctor", "docket doctor: run_command cannot run here.");
}

/**
 * Add `docket doctor` and its alias `docket sandbox check`: whether bubblewrap is present, whether
 * it can really make namespaces here (a fresh probe), which mode is configured and what that
 * means; `--json` prints one object. Exits 1 when `required` cannot be met.
 *
 * @example
 * ```ts
 * import { Command } from "commander";
 * const program = new Command("docket");
 * registerDoctorCommand(program);
 * await program.parseAsync(["doctor", "--json"], { from: "user" });
 * ```
 */
export function registerDoctorCommand(program: Command): void {
  const describe = (command: Command) =>
    command
      .option("--config <file>", CONFIG_FLAG_HELP)
      .option("--store <url>", STORE_FLAG_HELP)
      .option("--json", "one JSON object")
      .action(doctor);
  describe(
    program
      .command("doctor")
      .description("Check the sandbox: is it available here, and what the configured mode means."),
  );
  describe(
    program
      .command("sandbox")
      .description("The OS sandbox of run_command.")
      .command("check")
      .description("Same as docket doctor."),
  );
}
