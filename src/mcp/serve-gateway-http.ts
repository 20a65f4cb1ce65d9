import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { answerDeepMessage } from "../gateway/answer-deep-message.js";
import { authenticateRequest, type GatewayAuth } from "../gateway/authenticate-request.js";
import { cancelOnDisconnect } from "../gateway/cancel-on-disconnect.js";
import { originAllowed } from "../gateway/check-origin.js";
import { conversationId } from "../gateway/conversation-id.js";
import { callerClaims, type GatewayPrincipal } from "../gateway/gateway-principal.js";
import { authRefusalReply, JSON_RPC, replyError } from "../gateway/gateway-reply.js";
import { GatewaySessions } from "../gateway/gateway-sessions.js";
import type { GatewaySettings } from "../gateway/gateway-settings.js";
import { addressOf, createGatewayTrail, type GatewayRefusal } from "../gateway/gateway-trail.js";
import { metadataUrl, protectedResourceMetadata } from "../gateway/protected-resource-metadata.js";
import { createAccessTokenVerifier } from "../gateway/verify-access-token.js";
import {
  type FailedAttemptLimiter,
  processAttemptLimiter,
} from "../shared/failed-attempt-limiter.js";
import { parseJson } from "../shared/parse-json.js";
import { MIN_TOKEN_CHARS } from "../shared/token-strength.js";
import type { GatewayBackend } from "./gateway-backend.js";
import { callToolAnswer, createGatewayServer } from "./gateway-server.js";
import { readCappedBody } from "./read-capped-body.js";

/** Options for `serveGatewayHttp`. Give `token` (one principal for every client) or `oauth`. */
export interface HttpGatewayOptions extends GatewaySettings {
  /** Static mode: clients send `Authorization: Bearer <token>` (at least 22 characters). */
  readonly token?: string;
  /** 0 picks a free port. */
  readonly port?: number;
  /** Static mode's principal. Default: the backend's (docket.yaml's `principal:`), else `agent`. */
  readonly principal?: string;
  /** Largest request body accepted. Default 1 MiB (the checkpoint's argument cap). */
  readonly maxBodyBytes?: number;
  /** Shared with the approvals API when both run in one process. */
  readonly limiter?: FailedAttemptLimiter;
  readonly path?: string;
  /** See `GatewayServerOptions.heartbeatMs`. */
  readonly heartbeatMs?: number;
}

/** A running HTTP gateway. */
export interface HttpGateway {
  /** `http://127.0.0.1:PORT/mcp` */
  readonly url: string;
  readonly port: number;
  /** Sessions open now. */
  readonly sessions: () => number;
  /** Close every session and stop listening. */
  close(): Promise<void>;
}

interface Session {
  readonly server: Server;
  readonly transport: StreamableHTTPServerTransport;
  readonly principal: GatewayPrincipal;
  /** The store session its calls belong to: the principal's conversation. */
  readonly conversation: string;
  close(): void;
}

const HOST = "127.0.0.1";

/**
 * Serve the gateway over Streamable HTTP on 127.0.0.1 only. Clients authenticate with a static
 * bearer token or, as an OAuth 2.1 resource server, with JWTs (RFC 9728 metadata, a `401` that
 * points to it); every failed check counts in a limiter shared by address and token prefix.
 * `Origin` and `Host` are checked, bodies capped, and sessions admitted up to a cap (503 past
 * it; a busy session is never closed, an idle one after the idle timeout). Each MCP session's
 * calls belong to its principal's conversation, so taint survives a reconnect.
 *
 * @example
 * ```ts
 * import { generateToken } from "./bearer-token.js";
 * declare const backend: import("./gateway-backend.js").GatewayBackend;
 * const gateway = await serveGatewayHttp(backend, { token: generateToken(), port: 8931 });
 * console.error(`listening on ${gateway.url}`);
 * ```
 */
export async function serveGatewayHttp(
  backend: GatewayBackend,
  options: HttpGatewayOptions,
): Promise<HttpGateway> {
  const {
    token,
    oauth,
    port = 0,
    principal = backend.principal,
    maxBodyBytes = 1024 * 1024,
    maxSessions = 256,
    idleTimeoutMs = 10 * 60_000,
    allowedOrigins = [],
    taintScope = "principal",
    limiter = processAttemptLimiter(),
    path = "/mcp",
    heartbeatMs,
  } = options;
  if ((token === undefined) === (oauth === undefined))
    throw new Error("the HTTP gateway needs exactly one of a bearer token or OAuth settings");
  if (token !== undefined && token.length < MIN_TOKEN_CHARS)
    throw new Error(`the gateway's bearer token must have at least ${MIN_TOKEN_CHARS} characters`);
  const sessions = new GatewaySessions<Session>({ maxSessions, idleTimeoutMs });
  // One store session per conversation, opened once even when its clients connect at once.
  const opened = new Map<string, Promise<void>>();
  const unsubscribe = backend.onToolsChanged?.(() => {
    for (const id of openIds)
      void sessions
        .get(id)
        ?.server.sendToolListChanged()
        .catch(() => {});
  });
  const openIds = new Set<string>();

  const trail = createGatewayTrail(backend.recordSystemEvent?.bind(backend));

  const open = async (req: IncomingMessage, who: GatewayPrincipal): Promise<string> => {
    const id = randomUUID();
    const conversation = conversationId(who, taintScope);
    let opening = opened.get(conversation);
    if (opening === undefined) {
      opening = Promise.resolve(backend.openSession?.(conversation, "http", who.id));
      opened.set(conversation, opening);
      opening.catch(() => opened.delete(conversation));
    }
    await opening;
    // Who connected, from where: recorded before the session exists, or it does not open.
    await trail.opened(req, who, conversation, id);
    const address = addressOf(req);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => id });
    const server = createGatewayServer({
      checkpoint: backend.checkpoint,
      tools: () => backend.tools(),
      sessionId: conversation,
      principal: who.id,
      caller: callerClaims(who),
      ...(heartbeatMs === undefined ? {} : { heartbeatMs }),
    });
    transport.onclose = () => sessions.remove(id);
    await server.connect(transport);
    sessions.add(id, {
      server,
      transport,
      principal: who,
      conversation,
      close: () => {
        openIds.delete(id);
        trail.closed(who, conversation, id, address);
        void server.close().catch(() => {});
      },
    });
    openIds.add(id);
    return id;
  };

  let auth: GatewayAuth = {
    type: "token",
    token: token ?? "",
    ...(principal ? { principal } : {}),
  };
  let metadata: string | undefined;
  let prm: Record<string, unknown> | undefined;
  let allowedHosts = new Set<string>();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    // Every refusal is answered first, then recorded with the principal when its token was valid.
    const deny = (refusal: GatewayRefusal, code: number = JSON_RPC.serverError, headers = {}) => {
      replyError(res, refusal.httpStatus, refusal.detail, headers, code);
      return trail.refused(req, refusal);
    };
    // Browsers reach 127.0.0.1 through DNS rebinding only under another Host name: refuse those.
    if (!allowedHosts.has(req.headers.host ?? "")) {
      return deny({ reason: "forbidden_host", httpStatus: 403, detail: "Forbidden host" });
    }
    if (!originAllowed(req.headers.origin, allowedOrigins)) {
      return deny({
        reason: "forbidden_origin",
        httpStatus: 403,
        detail: "Forbidden origin: add it to gateway.allowed_origins to let a page in",
      });
    }
    const pathname = new URL(req.url ?? "/", "http://localhost").pathname;
    if (prm !== undefined && metadata !== undefined && pathname === new URL(metadata).pathname) {
      res.writeHead(200, { "content-type": "application/json", "cache-control": "max-age=300" });
      return res.end(JSON.stringify(prm));
    }
    const outcome = await authenticateRequest(req, auth, limiter, principal);
    if (outcome.status !== "ok") {
      const answer = authRefusalReply(outcome, metadata);
      // A throttled request is counted by the limiter, not recorded: a flood would fill the trail.
      if (outcome.status === "throttled") {
        return replyError(res, answer.status, answer.message, answer.headers);
      }
      const reason = outcome.status === "forbidden" ? "insufficient_scope" : "unauthorized";
      const refusal = { reason, httpStatus: answer.status, detail: answer.message } as const;
      return deny(refusal, JSON_RPC.serverError, answer.headers);
    }
    const who = outcome.principal;
    if (pathname !== path) return replyError(res, 404, "Not found");
    let body: unknown;
    if (req.method === "POST") {
      const read = await readCappedBody(req, maxBodyBytes);
      if (read.status === "too_large") {
        const detail = `Invalid request: the body is over ${maxBodyBytes} bytes`;
        const refusal = { reason: "body_too_large", httpStatus: 413, detail, principal: who };
        return deny(refusal as GatewayRefusal, JSON_RPC.invalidRequest);
      }
      try {
        body = parseJson(read.text);
      } catch {
        const detail = "Parse error: the body is not JSON";
        const refusal = { reason: "malformed_body", httpStatus: 400, detail, principal: who };
        return deny(refusal as GatewayRefusal, JSON_RPC.parseError);
      }
    }
    const header = req.headers["mcp-session-id"];
    let id = Array.isArray(header) ? header[0] : header;
    const known = id === undefined ? undefined : sessions.get(id);
    // A session belongs to the principal that opened it: another's token does not reach it.
    if (id !== undefined && known?.principal.id !== who.id) {
      const detail =
        sessions.missing(id) === "closed_idle"
          ? `Session not found: it was closed after ${Math.round(idleTimeoutMs / 1000)} s idle; send initialize again`
          : "Session not found";
      return deny({ reason: "unknown_session", httpStatus: 404, detail, principal: who });
    }
    if (id === undefined) {
      if (req.method !== "POST" || !isInitializeRequest(body)) {
        const detail = "Bad request: no session (send initialize first)";
        return deny({ reason: "no_session", httpStatus: 400, detail, principal: who });
      }
      if (!sessions.hasRoom()) {
        const detail = `The gateway is at its cap of ${maxSessions} sessions; try again shortly, or raise gateway.max_sessions (--max-sessions)`;
        const refusal = { reason: "at_capacity", httpStatus: 503, detail, principal: who } as const;
        return deny(refusal, JSON_RPC.serverError, { "retry-after": "2" });
      }
      id = await open(req, who);
    }
    const session = sessions.get(id) as Session;
    const deep = await answerDeepMessage(body, {
      checkpoint: backend.checkpoint,
      sessionId: session.conversation,
      principal: session.principal.id,
      caller: callerClaims(session.principal),
      answer: callToolAnswer,
    });
    if (deep !== undefined) {
      res.writeHead(200, { "content-type": "application/json", "mcp-session-id": id });
      res.end(JSON.stringify(deep));
      // A deep call was recorded by the checkpoint; any other deep message is refused here.
      if ("error" in deep) {
        const detail = String((deep.error as { message?: unknown }).message);
        await trail.refused(req, { reason: "too_deep", httpStatus: 200, detail, principal: who });
      }
      return;
    }
    cancelOnDisconnect(session.transport, res, body);
    if (req.method === "POST") res.once("close", sessions.begin(id));
    await session.transport.handleRequest(req, res, body);
  };

  const http = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) replyError(res, 500, "Internal error");
      else res.end();
    });
  });
  // Longer than clients keep idle sockets, so the server does not close one a client is reusing
  // (under load that race cut calls with "other side closed").
  http.keepAliveTimeout = 65_000;
  http.headersTimeout = 66_000;
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(port, HOST, () => resolve());
  });
  const bound = (http.address() as AddressInfo).port;
  allowedHosts = new Set([`127.0.0.1:${bound}`, `localhost:${bound}`]);
  const url = `http://${HOST}:${bound}${path}`;
  const close = async () => {
    unsubscribe?.();
    sessions.closeAll();
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  };
  if (oauth !== undefined) {
    const resource = options.resource ?? url;
    try {
      const verify = await createAccessTokenVerifier({
        ...oauth,
        audience: oauth.audience ?? resource,
      });
      auth = { type: "oauth", verify };
    } catch (error) {
      await close();
      throw error;
    }
    metadata = metadataUrl(resource);
    prm = protectedResourceMetadata({
      resource,
      authorizationServers: oauth.authorizationServers ?? [oauth.issuer],
      ...(oauth.requiredScopes ? { scopes: oauth.requiredScopes } : {}),
    });
  }
  return { url, port: bound, sessions: () => sessions.size, close };
}
