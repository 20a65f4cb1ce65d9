import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import { createHarness } from "../../loop/create-harness.js";
import type { HarnessEvent } from "../../loop/harness-options.js";
import { resolveStoreUrl } from "../../store/resolve-store-url.js";
import type { Store } from "../../store/store.js";
import { buildRuntime } from "../build-runtime.js";
import { packageRoot } from "../package-root.js";
import { createRunPrinter, type RunPrinter } from "../run-printer.js";
import { registerAuditCommand } from "./audit-command.js";
import { STORE_FLAG_HELP } from "./command-flags.js";
import { narrateCall } from "./demo-narrator.js";

/**
 * Print each event in order, and before each call's result say in words how it was decided, read
 * from the call's audit events (the trail is the source, so the words follow what happened).
 */
function narrated(
  { onEvent: print, note }: RunPrinter,
  store: Store,
  json: boolean,
): { onEvent: (event: HarnessEvent) => void; done: () => Promise<void> } {
  let queue = Promise.resolve();
  let sessionId: string | undefined;
  const say = async (event: HarnessEvent) => {
    if (event.type === "run_start") sessionId = event.sessionId;
    if (event.type === "tool_result" && !json && sessionId) {
      const events = await store.listEvents({ sessionId, callId: event.result.callId });
      const callId = event.result.callId;
      const lines = narrateCall(events).map((line) => `  · ${callId}: ${line}\n`);
      if (lines.length > 0) note(lines.join(""));
    }
    print(event);
  };
  return {
    onEvent: (event) => {
      queue = queue.then(() => say(event)).catch(() => print(event));
    },
    done: () => queue,
  };
}

interface DemoOptions {
  readonly approve?: boolean;
  readonly deny?: boolean;
  readonly store?: string;
  readonly json?: boolean;
}

/**
 * Add `docket demo`: a support desk played offline by a scripted model through the real
 * checkpoint, policy, approvals and store, showing an allowed call, a denied call, a malformed
 * call, a failing call and an approval, then the session's audit trail.
 *
 * @example
 * ```ts
 * import { Command } from "commander";
 * const program = new Command("docket");
 * registerDemoCommand(program);
 * await program.parseAsync(["demo", "--approve"], { from: "user" });
 * ```
 */
export function registerDemoCommand(program: Command): void {
  program
    .command("demo")
    .description("Play the offline support-desk demo (no model or key needed).")
    .option("--approve", "approve the refund that needs a lead (when no terminal can ask)")
    .option("--deny", "deny it")
    .option("--store <url>", STORE_FLAG_HELP)
    .option("--json", "one JSON object per line")
    .action(async (options: DemoOptions) => {
      if (options.approve && options.deny) throw new Error("Choose one of --approve and --deny.");
      const dir = join(packageRoot().dir, "examples", "support-desk");
      // Loaded when the demo plays: the example imports the package by its name, as users do.
      const [{ openOrdersDatabase }, { supportTools }] = await Promise.all([
        import("../../../examples/support-desk/orders-database.js"),
        import("../../../examples/support-desk/support-tools.js"),
      ]);
      // A fresh orders database each time, so every demo tells the same story.
      const scratch = await mkdtemp(join(tmpdir(), "docket-demo-"));
      const orders = openOrdersDatabase(join(scratch, "orders.db"));
      const escalations: { orderId: string; summary: string }[] = [];
      const interactive = Boolean(process.stdin.isTTY && process.stderr.isTTY);
      const autoDecide = options.approve ? "approve" : options.deny ? "deny" : undefined;
      // The demo's docket.yaml lives in the package; its store is the current directory's, as
      // before docket.yaml's folder anchored the default store (and the audit below reads it).
      const storeUrl = options.store ?? resolveStoreUrl();
      const runtime = await buildRuntime({
        config: join(dir, "docket.yaml"),
        store: storeUrl,
        terminal: interactive && autoDecide === undefined,
        autoDecide,
        as: "lead",
        builtins: false,
        connectMcp: false,
        tools: supportTools(orders, escalations),
      });
      const printer = createRunPrinter({ json: Boolean(options.json) });
      let sessionId: string | undefined;
      try {
        if (!interactive && autoDecide === undefined && !options.json) {
          process.stderr.write(
            "No terminal to ask at: the refund that needs a lead will be refused. Pass --approve or --deny to decide it.\n",
          );
        }
        const harness = createHarness({
          model: `scripted:${join(dir, "script.yaml")}`,
          tools: runtime.tools,
          policy: runtime.policy,
          store: runtime.store,
          ...(runtime.approvals && (interactive || autoDecide)
            ? { approvals: runtime.approvals }
            : {}),
          principal: runtime.cli.runtime.principal,
          configHash: runtime.configHash,
          limits: runtime.cli.runtime.limits,
          system: "You are the support desk of a furniture shop.",
        });
        const story = narrated(printer, runtime.store, Boolean(options.json));
        const result = await harness.run(
          "My walnut desk (order SU-88421) arrived with a cracked top. Can I get my money back?",
          { onEvent: story.onEvent },
        );
        await story.done();
        printer.finish(result);
        sessionId = result.sessionId;
        process.exitCode = result.status === "completed" ? 0 : 1;
      } finally {
        await runtime.close();
        orders.close();
        await rm(scratch, { recursive: true, force: true });
      }
      if (sessionId && !options.json) {
        process.stderr.write(
          `\nThe audit trail of session ${sessionId} (docket audit list --session ${sessionId}):\n`,
        );
        const store = ["--store", storeUrl];
        for (const args of [
          ["audit", "list", "--session", sessionId],
          ["audit", "verify", "--session", sessionId],
        ]) {
          const audit = new Command("docket").exitOverride();
          registerAuditCommand(audit);
          await audit.parseAsync([...args, ...store], { from: "user" });
        }
      }
    });
}
