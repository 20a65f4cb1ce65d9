import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ApprovalsHttpServer,
  serveApprovals,
} from "../../src/approval/approvals-http-server.js";
import { createApproverDirectory } from "../../src/approval/approver-directory.js";
import { createMemoryEventSink } from "../../src/checkpoint/memory-event-sink.js";
import { generateToken } from "../../src/mcp/bearer-token.js";
import {
  createGatewayBackend,
  type McpGatewayBackend,
} from "../../src/mcp/create-gateway-backend.js";
import { type HttpGateway, serveGatewayHttp } from "../../src/mcp/serve-gateway-http.js";
import { FailedAttemptLimiter } from "../../src/shared/failed-attempt-limiter.js";
import { openStore } from "../../src/store/open-store.js";
import type { Store } from "../../src/store/store.js";
import { RAW_INITIALIZE, rawHeaders } from "./support/raw-initialize.js";

// Guessing tokens: one limiter for the gateway and the approvals API, by address and token prefix.
const gatewayToken = generateToken();
const approverToken = generateToken();
let store: Store;
let backend: McpGatewayBackend;
let gateway: HttpGateway;
let approvals: ApprovalsHttpServer;
const limiter = new FailedAttemptLimiter({ maxFailures: 5, windowMs: 60_000 });

beforeAll(async () => {
  store = await openStore(
    `sqlite:${join(await mkdtemp(join(tmpdir(), "docket-brute-")), "docket.db")}`,
  );
  backend = await createGatewayBackend({ tools: [], events: createMemoryEventSink() });
  gateway = await serveGatewayHttp(backend, { token: gatewayToken, limiter });
  const directory = createApproverDirectory(
    { bob: { roles: ["lead"], token_env: "BOB_TOKEN" } },
    { BOB_TOKEN: approverToken },
  );
  approvals = await serveApprovals({ store, directory, limiter });
});

afterAll(async () => {
  await gateway?.close();
  await approvals?.close();
  await backend?.close();
  await store?.close();
});

const listApprovals = (token: string) =>
  fetch(`${approvals.url}/approvals`, { headers: { authorization: `Bearer ${token}` } });

describe("guessing bearer tokens", () => {
  it("is throttled after a few wrong tokens on either surface, even for the right token", async () => {
    expect((await listApprovals(approverToken)).status).toBe(200);
    for (let i = 0; i < 3; i += 1) expect((await listApprovals(generateToken())).status).toBe(401);
    for (let i = 0; i < 2; i += 1) {
      const wrong = await fetch(gateway.url, {
        method: "POST",
        headers: rawHeaders(generateToken()),
        body: RAW_INITIALIZE,
      });
      expect(wrong.status).toBe(401);
    }
    // Five failures from this address across both: the right tokens are not even checked now.
    const throttled = await listApprovals(approverToken);
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get("retry-after"))).toBeGreaterThan(0);
    const atGateway = await fetch(gateway.url, {
      method: "POST",
      headers: rawHeaders(gatewayToken),
      body: RAW_INITIALIZE,
    });
    expect(atGateway.status).toBe(429);
    expect(atGateway.headers.get("retry-after")).toMatch(/^\d+$/);
  });
});
