import type { HttpBindings } from "@hono/node-server";
import { type Context, Hono, type MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { isDocketError } from "../errors/docket-error.js";
import type { FailedAttemptLimiter } from "../shared/failed-attempt-limiter.js";
import { hostAllowed } from "../shared/host-check.js";
import { maskSecrets } from "../shared/mask-secrets.js";
import { parseJson } from "../shared/parse-json.js";
import type { ApprovalStore } from "../store/approval-store.js";
import type { AuditTrail } from "../store/audit-trail.js";
import { readListQuery } from "./approvals-list-query.js";
import { type ApproverDirectory, authenticate } from "./approver-directory.js";
import { decideApproval } from "./decide-approval.js";

/** Largest decision body read, in bytes. */
export const MAX_BODY = 16 * 1024;

/** Hono's types for the API: Node's request, and the bearer token once it was checked. */
export interface ApprovalsEnv {
  Bindings: HttpBindings;
  Variables: { token: string };
}

const STATUS_CODES = {
  decided: 200,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  invalid: 400,
} as const;

type Status = 200 | 400 | 401 | 403 | 404 | 405 | 409 | 413 | 421 | 429 | 500;

// JSON with the charset and no-store on every answer, errors included: approvals are not cached.
function send(c: Context, status: Status, body: unknown): Response {
  return c.body(JSON.stringify(body), status, {
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
  });
}

function bearer(header: string | undefined): string | undefined {
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match?.[1];
}

// The id as it was sent: a malformed escape is an id no request has, not a server error.
function approvalId(c: Context): string | undefined {
  const raw = new URL(c.req.url).pathname.split("/").filter(Boolean)[1];
  try {
    return raw === undefined ? undefined : decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}

const notFound = (c: Context) =>
  send(c, 404, { error: "not_found", message: "There is no such approval request." });

/** What the routes need: the store, who may decide, and the limiter token checks share. */
export interface ApprovalsRouteOptions {
  readonly store: ApprovalStore & AuditTrail;
  readonly directory: ApproverDirectory;
  /** The address the server is bound to, for the Host check. */
  readonly host: string;
  readonly limiter: FailedAttemptLimiter;
}

/**
 * The approvals API's routes as a Hono app: `GET /approvals`, `GET /approvals/:id`,
 * `POST /approvals/:id/decision`. In order: the Host check (421), an unknown route (404 naming
 * the routes), the shared failed-attempt limiter (429), the bearer token (401), then the route,
 * and 405 for another method on a known route. Every answer is JSON.
 *
 * @example
 * ```ts
 * import { getRequestListener } from "@hono/node-server";
 * import { processAttemptLimiter } from "../shared/failed-attempt-limiter.js";
 * import type { Store } from "../store/store.js";
 * import type { ApproverDirectory } from "./approver-directory.js";
 * declare const store: Store;
 * declare const directory: ApproverDirectory;
 * const app = approvalsRoutes({ store, directory, host: "127.0.0.1", limiter: processAttemptLimiter() });
 * const listener = getRequestListener(app.fetch);
 * ```
 */
export function approvalsRoutes({
  store,
  directory,
  host,
  limiter,
}: ApprovalsRouteOptions): Hono<ApprovalsEnv> {
  const app = new Hono<ApprovalsEnv>({ strict: false });
  // Against DNS rebinding: a page whose name now points at 127.0.0.1 still sends its own Host.
  app.use("*", async (c, next) => {
    if (!hostAllowed(c.req.header("host"), { bound: host })) {
      return send(c, 421, {
        error: "wrong_host",
        message: "This server answers only to its own address (Host check).",
      });
    }
    await next();
  });
  const signedIn: MiddlewareHandler<ApprovalsEnv> = async (c, next) => {
    const token = bearer(c.req.header("authorization"));
    const attempt = { address: c.env?.incoming?.socket?.remoteAddress, token };
    const admission = limiter.admit(attempt);
    if (admission.status === "throttled") {
      c.header("retry-after", String(admission.retryAfterSeconds));
      return send(c, 429, {
        error: "throttled",
        message: "Too many failed attempts from this address or with this token; try again later.",
      });
    }
    const who = token ? authenticate(directory, { token }) : undefined;
    if (token !== undefined && who?.status !== "authenticated") limiter.fail(attempt);
    if (token === undefined || who?.status !== "authenticated") {
      c.header("www-authenticate", 'Bearer realm="docket"');
      return send(c, 401, {
        error: "unauthenticated",
        message: "Send an approver's token: Authorization: Bearer TOKEN.",
      });
    }
    c.set("token", token);
    await next();
  };
  const routes = ["/approvals", "/approvals/:id", "/approvals/:id/decision"];
  for (const route of routes) app.use(route, signedIn);

  app.get("/approvals", async (c) => {
    await store.expireApprovals();
    const query = readListQuery(new URL(c.req.url).searchParams);
    if (query.status === "invalid") {
      return send(c, 400, { error: "invalid_filter", message: query.message });
    }
    try {
      const page = await store.pageApprovals(query.filter);
      return send(c, 200, { ...page, more: page.next !== undefined });
    } catch (error) {
      if (isDocketError(error) && error.code === "invalid_filter") {
        return send(c, 400, { error: "invalid_filter", message: error.message });
      }
      throw error;
    }
  });
  app.get("/approvals/:id", async (c) => {
    const id = approvalId(c);
    if (id === undefined) return notFound(c);
    const approval = await store.getApproval(id);
    return approval
      ? send(c, 200, approval)
      : send(c, 404, { error: "not_found", message: `There is no approval request ${id}.` });
  });
  app.post(
    "/approvals/:id/decision",
    bodyLimit({
      maxSize: MAX_BODY,
      onError: (c) =>
        send(c, 413, { error: "too_large", message: `The body is larger than ${MAX_BODY} bytes.` }),
    }),
    async (c) => {
      const id = approvalId(c);
      if (id === undefined) return notFound(c);
      const input = readDecision(await c.req.text());
      if (input.status === "invalid")
        return send(c, 400, { error: "invalid", message: input.message });
      const outcome = await decideApproval(store, directory, {
        approvalId: id,
        ...input.decision,
        claim: { token: c.get("token") },
      });
      const status = STATUS_CODES[outcome.status];
      return outcome.status === "decided"
        ? send(c, status, outcome.approval)
        : send(c, status, {
            error: outcome.status,
            message: outcome.message,
            ...("approval" in outcome ? { approval: outcome.approval } : {}),
          });
    },
  );
  for (const route of routes) {
    app.all(route, (c) =>
      send(c, 405, {
        error: "method_not_allowed",
        message: `${c.req.method} is not supported here.`,
      }),
    );
  }
  app.notFound((c) =>
    send(c, 404, {
      error: "not_found",
      message: "Routes: GET /approvals, GET /approvals/:id, POST /approvals/:id/decision.",
    }),
  );
  app.onError((error, c) =>
    send(c, 500, {
      error: "internal",
      message: `The request failed: ${maskSecrets(String(error?.message ?? error))}`,
    }),
  );
  return app;
}

type DecisionInput =
  | {
      readonly status: "ok";
      readonly decision: {
        decision: "approve" | "deny";
        reason?: string;
        scope?: "once" | "session";
      };
    }
  | { readonly status: "invalid"; readonly message: string };

function readDecision(body: string): DecisionInput {
  let input: { decision?: unknown; reason?: unknown; scope?: unknown };
  try {
    input = parseJson(body) as typeof input;
  } catch {
    return {
      status: "invalid",
      message: 'The body must be JSON: {"decision": "approve" | "deny", "reason"?: string}.',
    };
  }
  if (
    input === null ||
    typeof input !== "object" ||
    (input.decision !== "approve" && input.decision !== "deny") ||
    (input.reason !== undefined && typeof input.reason !== "string") ||
    (input.scope !== undefined && input.scope !== "once" && input.scope !== "session")
  ) {
    return {
      status: "invalid",
      message: 'decision must be "approve" or "deny"; reason a string; scope "once" or "session".',
    };
  }
  return {
    status: "ok",
    decision: {
      decision: input.decision,
      ...(typeof input.reason === "string" ? { reason: input.reason } : {}),
      ...(input.scope === "once" || input.scope === "session" ? { scope: input.scope } : {}),
    },
  };
}
