import { type Command, InvalidArgumentError } from "commander";
import { serveApprovals } from "../../approval/approvals-http-server.js";
import { openStore } from "../../store/open-store.js";
import { loadCliConfig } from "../load-cli-config.js";
import { CONFIG_FLAG_HELP, STORE_FLAG_HELP } from "./open-command-store.js";

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) {
    throw new InvalidArgumentError(`"${value}" is not a port (0-65535).`);
  }
  return port;
}

/**
 * Add `docket serve`: the approvals HTTP API on 127.0.0.1 (by default), for approvers deciding
 * from other terminals, scripts or a web console.
 *
 * @example
 * ```ts
 * registerServeCommand(program);
 * ```
 */
export function registerServeCommand(program: Command): void {
  program
    .command("serve")
    .description("Serve the approvals HTTP API (GET /approvals, POST /approvals/:id/decision).")
    .option("--config <file>", CONFIG_FLAG_HELP)
    .option("--store <url>", STORE_FLAG_HELP)
    .option("--port <port>", "port (0 picks a free one)", parsePort, 7420)
    .option("--host <host>", "address to bind (keep it local unless a proxy adds TLS)", "127.0.0.1")
    .action(async (options: { config?: string; store?: string; port: number; host: string }) => {
      const cli = loadCliConfig(options);
      if ([...cli.directory.entries.values()].every((entry) => !entry.tokenSha256)) {
        throw new Error(
          "No approver has a token (approvers.NAME.token_env or token_sha256): nobody could authenticate over HTTP.",
        );
      }
      const store = await openStore(cli.storeUrl, { recover: false, mustExist: true });
      let api: Awaited<ReturnType<typeof serveApprovals>>;
      try {
        api = await serveApprovals({
          store,
          directory: cli.directory,
          port: options.port,
          host: options.host,
        });
      } catch (error) {
        await store.close();
        throw error;
      }
      process.stderr.write(`docket serve: approvals API at ${api.url}/approvals\n`);
      await new Promise<void>((resolve) => {
        process.once("SIGINT", resolve);
        process.once("SIGTERM", resolve);
      });
      await api.close();
      await store.close();
    });
}
