import { existsSync } from "node:fs";
import { getRequestListener } from "@hono/node-server";
import { type Command, InvalidArgumentError } from "commander";
import {
  createApprovalNotifier,
  type NotifyOutcome,
  type NotifyTarget,
} from "../../approval/approval-notifier.js";
import { serveApprovals } from "../../approval/approvals-http-server.js";
import type { NotifyFormat } from "../../approval/notify-message.js";
import { readPublicKey, resolveAuditPaths } from "../../audit/audit-key.js";
import { type DigestLog, openDigestLog } from "../../audit/digest-log.js";
import { verifyStoreTrail } from "../../audit/verify-store-trail.js";
import { createWebConsole } from "../../console/create-web-console.js";
import { createInboxFeed, type InboxFeed } from "../../console/inbox-feed.js";
import { isDocketError } from "../../errors/docket-error.js";
import type { Approval } from "../../store/approval-record.js";
import type { Store } from "../../store/store.js";
import { loadCliConfig } from "../load-cli-config.js";
import { CONFIG_FLAG_HELP, STORE_FLAG_HELP } from "./command-flags.js";
import { openSignedStore, type SignedStore } from "./open-signed-store.js";

const NOTIFY_FORMATS: readonly NotifyFormat[] = ["webhook", "slack", "teams"];

/** `--notify FORMAT=URL`, repeatable. */
function parseNotify(value: string, earlier: readonly NotifyTarget[] = []): NotifyTarget[] {
  const at = value.indexOf("=");
  const format = value.slice(0, at) as NotifyFormat;
  const url = value.slice(at + 1);
  if (at < 0 || !NOTIFY_FORMATS.includes(format) || !/^https?:\/\//.test(url) || !URL.canParse(url))
    throw new InvalidArgumentError(
      `use FORMAT=URL, FORMAT one of ${NOTIFY_FORMATS.join(", ")} and URL an http(s) address.`,
    );
  return [...earlier, { format, url }];
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) {
    throw new InvalidArgumentError(`"${value}" is not a port (0-65535).`);
  }
  return port;
}

interface ServeOptions {
  readonly config?: string;
  readonly store?: string;
  readonly port: number;
  readonly host: string;
  readonly notify?: NotifyTarget[];
  readonly publicUrl?: string;
}

/**
 * Send a notice for each request that appears from now on (not for those already waiting at
 * start: a restart does not announce them again). A receiver that fails is said on stderr.
 */
async function announceNewRequests(
  store: Store,
  feed: InboxFeed,
  notify: (approval: Approval) => Promise<NotifyOutcome[]>,
): Promise<() => void> {
  const waiting = await store.pageApprovals({ status: "pending", limit: 50 });
  return feed.subscribe(
    waiting.approvals.map((approval) => approval.id),
    (change) => {
      if (change.type !== "add") return;
      void notify(change.approval).then((outcomes) => {
        for (const outcome of outcomes)
          if (outcome.status === "failed")
            process.stderr.write(
              `docket serve: the notice of ${change.approval.id} to ${outcome.to} failed: ${outcome.reason}\n`,
            );
      });
    },
  );
}

/**
 * The store the approvers decide in. An approver may open the console before the project's
 * first run: the store is then made empty (as that run would make it), and the operator told,
 * so that a mistyped `--store` is seen rather than silently served.
 */
async function openServedStore(
  url: string,
  audit: Parameters<typeof openSignedStore>[1],
): Promise<SignedStore> {
  try {
    return await openSignedStore(url, audit, { recover: false, mustExist: true });
  } catch (error) {
    if (!isDocketError(error) || error.code !== "store_not_found") throw error;
    const signed = await openSignedStore(url, audit, { recover: false });
    process.stderr.write(
      `docket serve: no runs yet, so no store at ${signed.store.location}: made an empty one; requests appear as runs ask.\n`,
    );
    return signed;
  }
}

/**
 * Add `docket serve`: the approvals HTTP API on 127.0.0.1 (by default), for approvers deciding
 * from other terminals, scripts or a web console.
 *
 * @example
 * ```ts
 * import { Command } from "commander";
 * const program = new Command("docket");
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
    .option(
      "--notify <format=url>",
      "announce new requests: webhook=URL (signed with DOCKET_NOTIFY_SECRET), slack=URL, teams=URL; repeatable",
      parseNotify,
    )
    .option("--public-url <url>", "the console's address in notices (default: where it listens)")
    .action(async (options: ServeOptions) => {
      const cli = loadCliConfig(options);
      if ([...cli.directory.entries.values()].every((entry) => !entry.tokenSha256)) {
        throw new Error(
          "No approver has a token (approvers.NAME.token_env or token_sha256): nobody could authenticate over HTTP.",
        );
      }
      // A notifier that cannot sign stops docket here, before the store is opened.
      const notifyTargets = options.notify ?? [];
      const makeNotifier = (origin: string) =>
        createApprovalNotifier({
          targets: notifyTargets,
          consoleOrigin: options.publicUrl ?? origin,
          secret: process.env.DOCKET_NOTIFY_SECRET,
        });
      if (notifyTargets.length > 0) makeNotifier("http://127.0.0.1");
      // Decisions made here are signed like a run's: at the usual cadence and when serve stops.
      const signed = await openServedStore(cli.storeUrl, cli.runtime.audit);
      const store = signed.store;
      // The console's verify badge is `docket audit verify`'s: with the public key and digest log
      // when docket has them.
      const paths = resolveAuditPaths(cli.runtime.audit);
      const publicKey = existsSync(paths.publicKeyFile)
        ? readPublicKey(paths.publicKeyFile).key
        : undefined;
      let digests: DigestLog | undefined;
      let api: Awaited<ReturnType<typeof serveApprovals>>;
      const feed = createInboxFeed(store);
      const web = createWebConsole({
        feed,
        where: { project: cli.projectFile, workspace: cli.workspace },
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
      const stopNotices =
        notifyTargets.length > 0
          ? await announceNewRequests(store, feed, makeNotifier(api.url))
          : undefined;
      await new Promise<void>((resolve) => {
        process.once("SIGINT", resolve);
        process.once("SIGTERM", resolve);
      });
      stopNotices?.();
      web.close();
      await api.close();
      await digests?.close();
      await signed.close();
    });
}
