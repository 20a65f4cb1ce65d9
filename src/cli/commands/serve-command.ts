import { existsSync } from "node:fs";
import { getRequestListener } from "@hono/node-server";
import { type Command, InvalidArgumentError } from "commander";
import { serveApprovals } from "../../approval/approvals-http-server.js";
import { readPublicKey, resolveAuditPaths } from "../../audit/audit-key.js";
import { type DigestLog, openDigestLog } from "../../audit/digest-log.js";
import { verifyStoreTrail } from "../../audit/verify-store-trail.js";
import { createWebConsole } from "../../console/create-web-console.js";
import { loadCliConfig } from "../load-cli-config.js";
import { CONFIG_FLAG_HELP, STORE_FLAG_HELP } from "./command-flags.js";
import { openSignedStore } from "./open-signed-store.js";

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
    .description(
      "Serve the approvals HTTP API (GET /approvals, POST /approvals/:id/decision) and the web console (/console/).",
    )
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
      // Decisions made here are signed like a run's: at the usual cadence and when serve stops.
      const signed = await openSignedStore(cli.storeUrl, cli.runtime.audit, {
        recover: false,
        mustExist: true,
      });
      const store = signed.store;
      // The console's verify badge is `docket audit verify`'s: with the public key and digest log
      // when docket has them.
      const paths = resolveAuditPaths(cli.runtime.audit);
      const publicKey = existsSync(paths.publicKeyFile)
        ? readPublicKey(paths.publicKeyFile).key
        : undefined;
      let digests: DigestLog | undefined;
      let api: Awaited<ReturnType<typeof serveApprovals>>;
      const web = createWebConsole({
        store,
        directory: cli.directory,
        host: options.host,
        verifySession: (sessionId) => verifyStoreTrail(store, { publicKey, digests, sessionId }),
      });
      try {
        if (publicKey) digests = await openDigestLog(paths.digests);
        api = await serveApprovals({
          store,
          directory: cli.directory,
          port: options.port,
          host: options.host,
          fallback: getRequestListener(web.fetch, { overrideGlobalObjects: false }),
        });
      } catch (error) {
        web.close();
        await digests?.close();
        await signed.close();
        throw error;
      }
      process.stderr.write(
        `docket serve: approvals API at ${api.url}/approvals, web console at ${api.url}/console/\n`,
      );
      await new Promise<void>((resolve) => {
        process.once("SIGINT", resolve);
        process.once("SIGTERM", resolve);
      });
      web.close();
      await api.close();
      await digests?.close();
      await signed.close();
    });
}
