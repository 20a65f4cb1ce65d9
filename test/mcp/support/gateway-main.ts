/**
 * `docket gateway` as the lead will wire it, with a hand-built backend: server-everything and the
 * dynamic test server behind one checkpoint, a deny rule and a programmatic approver.
 *
 * Run: node --import tsx test/mcp/support/gateway-main.ts gateway [--http PORT]
 */
import { Command } from "commander";
import { createMemoryEventSink } from "../../../src/checkpoint/memory-event-sink.js";
import { registerGatewayCommand } from "../../../src/cli/commands/gateway-command.js";
import { createGatewayBackend } from "../../../src/mcp/create-gateway-backend.js";
import { dynamicServer, everythingServer } from "./mcp-fixtures.js";

const program = new Command("docket").exitOverride();
registerGatewayCommand(program, {
  buildCheckpoint: () =>
    createGatewayBackend({
      events: createMemoryEventSink(),
      mcp: { servers: { everything: everythingServer(), dyn: dynamicServer() } },
      policy: {
        rules: [
          {
            decision: "deny",
            tool: "everything__get-env",
            reason: "the environment stays private",
          },
          { decision: "allow", tool: ["everything__echo", "dyn__*"] },
        ],
      },
      // Writes ask; this approver allows them unless the message says otherwise.
      approvals: (request) =>
        String(request.args.message ?? "").includes("no")
          ? { decision: "deny", by: "reviewer", reason: "said no" }
          : { decision: "approve", by: "reviewer" },
    }),
});
try {
  await program.parseAsync(process.argv.slice(2), { from: "user" });
} catch (error) {
  process.stderr.write(`gateway-main: ${(error as Error).message}\n`);
  process.exitCode = 1;
}
