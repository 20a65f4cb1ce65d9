import { createInterface } from "node:readline/promises";
import type { Command } from "commander";
import { HOST_NAMES, isHostName } from "../../hook/host-name.js";
import { applyRegistration, planRegistration } from "../../hook/install-hook.js";
import { commandFailure } from "./command-failure.js";

/** How this docket was started, so the host runs the same one (`node …/main.js hook HOST`). */
function selfCommand(host: string): string {
  const quote = (word: string) =>
    /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
  const words = [process.execPath, ...process.execArgv, process.argv[1] ?? "docket"];
  return `${words.map(quote).join(" ")} hook ${host}`;
}

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
  readonly command?: string;
  readonly project?: string;
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
    command: flags.command ?? selfCommand(host),
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
 * `docket hook HOST` (answered before this parser runs, see src/cli/main.ts), `docket hook install
 * HOST` and `docket hook uninstall HOST`.
 *
 * @example
 * ```ts
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
      .action(() =>
        // Only reached when main.ts did not take the call; never answer allow from here.
        commandFailure(
          2,
          "docket.hook.unguarded",
          "docket: the hook ran unguarded; the call is denied.",
        ),
      );
  }
  for (const action of ["install", "uninstall"] as const) {
    hook
      .command(`${action} <host>`)
      .description(
        action === "install"
          ? "Register docket in the host's settings (shows the diff first)."
          : "Remove exactly docket's registration from the host's settings.",
      )
      .option("--yes", "write without asking")
      .option("--command <command>", "the command the host runs (default: this docket)")
      .option("--project <dir>", "the project directory (default: the current one)")
      .action((host: string, flags: RegisterFlags) => register(action, host, flags));
  }
}
