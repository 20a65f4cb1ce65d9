import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import { DocketError } from "../errors/docket-error.js";
import {
  type FailedAttemptLimiter,
  processAttemptLimiter,
} from "../shared/failed-attempt-limiter.js";
import type { Store } from "../store/store.js";
import { approvalsRoutes } from "./approvals-routes.js";
import type { ApproverDirectory } from "./approver-directory.js";

// The path's first segment; a request target URL cannot read is the API's to refuse.
function firstSegment(target: string | undefined): string | undefined {
  try {
    return new URL(target ?? "/", "http://localhost").pathname.split("/").find(Boolean);
  } catch {
    return "approvals";
  }
}

/** A running approvals API. */
export interface ApprovalsHttpServer {
  readonly url: string;
  readonly server: Server;
  close(): Promise<void>;
}

/**
 * Serve the approvals API on 127.0.0.1 (by default): `GET /approvals` (newest first, a page at a
 * time: `?status=pending|approved|denied|expired|all&limit=1..1000&cursor=NEXT`, answered with
 * `{ approvals, total, more, next? }`), `GET /approvals/:id` and
 * `POST /approvals/:id/decision` (`{ "decision": "approve" | "deny", "reason"?, "scope"? }`).
 * Every request needs an approver's bearer token (401 without, 429 after too many wrong ones from
 * one address or with one token prefix, 403 for someone not allowed to
 * decide, 404 for an unknown id, 409 when already decided or expired); bodies are capped at 16 KiB.
 * A request whose Host is not a loopback name or the bound address is refused (421).
 * `fallback` answers every path outside /approvals (the web console); without it they are 404.
 * The routes are a Hono app (approvals-routes.ts), as the console is.
 *
 * @example
 * ```ts
 * declare const store: import("../store/store.js").Store;
 * declare const directory: import("./approver-directory.js").ApproverDirectory;
 * const api = await serveApprovals({ store, directory, port: 7420 });
 * console.log(`approvals at ${api.url}`);
 * ```
 */
export async function serveApprovals({
  store,
  directory,
  port = 0,
  host = "127.0.0.1",
  fallback,
  limiter = processAttemptLimiter(),
}: {
  store: Store;
  directory: ApproverDirectory;
  port?: number;
  host?: string;
  fallback?: RequestListener;
  /** Failed token checks, shared with the gateway's (per address and token prefix). */
  limiter?: FailedAttemptLimiter;
}): Promise<ApprovalsHttpServer> {
  const app = approvalsRoutes({ store, directory, host, limiter });
  const api = getRequestListener(app.fetch, { overrideGlobalObjects: false });
  const server = createServer((req, res) => {
    if (fallback && firstSegment(req.url) !== "approvals") return fallback(req, res);
    return api(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        error.code === "EADDRINUSE" || error.code === "EACCES"
          ? new DocketError(
              "listen_failed",
              `cannot listen on ${host}:${port}: ${error.code === "EADDRINUSE" ? "the port is in use (pass --port N)" : "permission denied"}`,
              { cause: error },
            )
          : error,
      ),
    );
    server.listen(port, host, resolve);
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${host}:${address.port}`,
    server,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
