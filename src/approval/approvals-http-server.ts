import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import { DocketError, isDocketError } from "../errors/docket-error.js";
import {
  type FailedAttemptLimiter,
  processAttemptLimiter,
} from "../shared/failed-attempt-limiter.js";
import { hostAllowed } from "../shared/host-check.js";
import { maskSecrets } from "../shared/mask-secrets.js";
import type { ApprovalPageFilter, ApprovalStatus } from "../store/approval-record.js";
import type { Store } from "../store/store.js";
import { type ApproverDirectory, authenticate } from "./approver-directory.js";
import { decideApproval } from "./decide-approval.js";

const MAX_BODY = 16 * 1024;

/** A running approvals API. */
export interface ApprovalsHttpServer {
  readonly url: string;
  readonly server: Server;
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
    "cache-control": "no-store",
  });
  res.end(text);
}

function readBody(req: IncomingMessage): Promise<string | "too_large"> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        // Past the cap, read and drop the rest: destroying the request would destroy the socket,
        // and the 413 would never reach the client.
        chunks.length = 0;
        resolve("too_large");
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function bearer(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match?.[1];
}

const STATUS_CODES = {
  decided: 200,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  invalid: 400,
} as const;

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
 *
 * @example
 * ```ts
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
  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? "/", "http://localhost");
      const parts = url.pathname.split("/").filter(Boolean);
      if (fallback && parts[0] !== "approvals") return fallback(req, res);
      // Against DNS rebinding: a page whose name now points at 127.0.0.1 still sends its own Host.
      if (!hostAllowed(req.headers.host, { bound: host })) {
        return send(res, 421, {
          error: "wrong_host",
          message: "This server answers only to its own address (Host check).",
        });
      }
      if (
        parts[0] !== "approvals" ||
        parts.length > 3 ||
        (parts.length === 3 && parts[2] !== "decision")
      ) {
        return send(res, 404, {
          error: "not_found",
          message: "Routes: GET /approvals, GET /approvals/:id, POST /approvals/:id/decision.",
        });
      }
      const token = bearer(req);
      const attempt = { address: req.socket.remoteAddress, token };
      const admission = limiter.admit(attempt);
      if (admission.status === "throttled") {
        res.setHeader("retry-after", String(admission.retryAfterSeconds));
        return send(res, 429, {
          error: "throttled",
          message:
            "Too many failed attempts from this address or with this token; try again later.",
        });
      }
      const who = token ? authenticate(directory, { token }) : undefined;
      if (token !== undefined && who?.status !== "authenticated") limiter.fail(attempt);
      if (who?.status !== "authenticated") {
        res.setHeader("www-authenticate", 'Bearer realm="docket"');
        return send(res, 401, {
          error: "unauthenticated",
          message: "Send an approver's token: Authorization: Bearer TOKEN.",
        });
      }
      let id: string | undefined;
      try {
        id = parts[1] ? decodeURIComponent(parts[1]) : undefined;
      } catch {
        return send(res, 404, {
          error: "not_found",
          message: "There is no such approval request.",
        });
      }
      if (req.method === "GET" && parts.length === 1) {
        await store.expireApprovals();
        const query = readListQuery(url.searchParams);
        if (query.status === "invalid") {
          return send(res, 400, { error: "invalid_filter", message: query.message });
        }
        try {
          const page = await store.pageApprovals(query.filter);
          return send(res, 200, { ...page, more: page.next !== undefined });
        } catch (error) {
          if (isDocketError(error) && error.code === "invalid_filter") {
            return send(res, 400, { error: "invalid_filter", message: error.message });
          }
          throw error;
        }
      }
      if (req.method === "GET" && parts.length === 2 && id) {
        const approval = await store.getApproval(id);
        return approval
          ? send(res, 200, approval)
          : send(res, 404, { error: "not_found", message: `There is no approval request ${id}.` });
      }
      if (req.method === "POST" && parts.length === 3 && id) {
        const body = await readBody(req);
        if (body === "too_large")
          return send(res, 413, {
            error: "too_large",
            message: `The body is larger than ${MAX_BODY} bytes.`,
          });
        let input: { decision?: unknown; reason?: unknown; scope?: unknown };
        try {
          input = JSON.parse(body) as typeof input;
        } catch {
          return send(res, 400, {
            error: "invalid",
            message: 'The body must be JSON: {"decision": "approve" | "deny", "reason"?: string}.',
          });
        }
        if (
          (input.decision !== "approve" && input.decision !== "deny") ||
          (input.reason !== undefined && typeof input.reason !== "string") ||
          (input.scope !== undefined && input.scope !== "once" && input.scope !== "session")
        ) {
          return send(res, 400, {
            error: "invalid",
            message:
              'decision must be "approve" or "deny"; reason a string; scope "once" or "session".',
          });
        }
        const outcome = await decideApproval(store, directory, {
          approvalId: id,
          decision: input.decision,
          ...(typeof input.reason === "string" ? { reason: input.reason } : {}),
          ...(input.scope ? { scope: input.scope as "once" | "session" } : {}),
          claim: { token: token as string },
        });
        const status = STATUS_CODES[outcome.status];
        return outcome.status === "decided"
          ? send(res, status, outcome.approval)
          : send(res, status, {
              error: outcome.status,
              message: outcome.message,
              ...("approval" in outcome ? { approval: outcome.approval } : {}),
            });
      }
      return send(res, 405, {
        error: "method_not_allowed",
        message: `${req.method} is not supported here.`,
      });
    } catch (error) {
      return send(res, 500, {
        error: "internal",
        message: `The request failed: ${maskSecrets(String((error as Error)?.message ?? error))}`,
      });
    }
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

const STATUSES = new Set(["pending", "approved", "denied", "expired"]);

/** `GET /approvals`'s query: the status (default pending, or all), the page size, the cursor. */
function readListQuery(
  params: URLSearchParams,
): { status: "ok"; filter: ApprovalPageFilter } | { status: "invalid"; message: string } {
  const status = params.get("status") ?? "pending";
  if (status !== "all" && !STATUSES.has(status)) {
    return {
      status: "invalid",
      message: "status is one of pending, approved, denied, expired, all.",
    };
  }
  const limitText = params.get("limit");
  const limit = limitText === null ? undefined : Number(limitText);
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= 1000)) {
    return { status: "invalid", message: "limit is an integer from 1 to 1000." };
  }
  const cursor = params.get("cursor") ?? undefined;
  return {
    status: "ok",
    filter: {
      ...(status === "all" ? {} : { status: status as ApprovalStatus }),
      ...(limit === undefined ? {} : { limit }),
      ...(cursor === undefined ? {} : { cursor }),
    },
  };
}
